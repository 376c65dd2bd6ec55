# bash completion for mqcontroller, generated from its CLI by `python -m mqadmin_py.completions`.
# Do not edit: run `make completions`. Static: nothing runs Python at TAB time. Install: completions/README.md.

_mqcontroller() {
    local cur=${COMP_WORDS[COMP_CWORD]} path='' word='' opt='' prefix='' i need=0 pos=0
    local -a gen=()
    COMPREPLY=()
    # Walk the words before the cursor: sub-commands extend the path, options skip their values.
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        if ((need > 0)); then
            [[ $word == = ]] || need=$((need - 1))  # COMP_WORDBREAKS splits --opt=value into 3 words
            continue
        fi
        case $word in
        -*)
            opt=$word
            case $path in
            '')
                case $word in
                '-c' | '--configFile' | '--log-level') need=1 ;;
                esac
                ;;
            esac
            ;;
        *)
            case "$path|$word" in
            *) pos=$((pos + 1)) ;;
            esac
            ;;
        esac
    done
    if ((need == 0)) && [[ $cur == -*=* ]]; then  # --opt=value as one word
        opt=${cur%%=*} prefix=${cur%%=*}= cur=${cur#*=} need=1
    fi
    if ((need > 0)); then
        [[ $cur == = ]] && cur=''
        case $path in
        '')
            case $opt in
            '-c' | '--configFile') gen=(-f) ;;
            esac
            ;;
        esac
    elif [[ $cur == -* ]]; then
        case $path in
        '') gen=(-W '-c --configFile -p --printConfigItem --log-level --version -h --help') ;;
        esac
    else
        case "$path|$pos" in
        '|'*) gen=(-W '-c --configFile -p --printConfigItem --log-level --version -h --help') ;;
        esac
    fi
    ((${#gen[@]})) || return 0
    [[ ${gen[0]} == -W ]] || compopt -o filenames 2>/dev/null
    while IFS= read -r word; do
        COMPREPLY+=("$prefix$word")
    done < <(compgen "${gen[@]}" -- "$cur")
    return 0
}

complete -F _mqcontroller mqcontroller
