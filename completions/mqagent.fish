# fish completion for mqagent, generated from its CLI by `python -m mqadmin_py.completions`.
# Do not edit: run `make completions`. Static: nothing runs Python at TAB time. Install: completions/README.md.

function __mqagent_complete_path --description 'Print the mqagent command path before the cursor'
    set -l path mqagent
    set -l need 0
    set -l words (commandline -opc)
    set -e words[1]
    for word in $words
        if test $need -gt 0
            set need (math $need - 1)
            continue
        end
        switch $word
            case '-*'
                switch $path
                    case 'mqagent'
                        contains -- $word -c --configFile --log-level; and set need 1
                end
            case '*'
        end
    end
    echo $path
end

function __mqagent_complete_at --description 'Is the mqagent command path one of the arguments?'
    contains -- (__mqagent_complete_path) $argv
end

complete -c mqagent -f

# mqagent
complete -c mqagent -n "__mqagent_complete_at 'mqagent'" -s c -l configFile -r -F -d 'Agent properties file (listenPort, brokerConfigPaths, ...).'
complete -c mqagent -n "__mqagent_complete_at 'mqagent'" -s p -l printConfigItem -d 'Print the effective configuration and exit.'
complete -c mqagent -n "__mqagent_complete_at 'mqagent'" -l log-level -x -d 'DEBUG, INFO, WARNING or ERROR.'
complete -c mqagent -n "__mqagent_complete_at 'mqagent'" -l version -d 'Print the version and exit.'
complete -c mqagent -n "__mqagent_complete_at 'mqagent'" -s h -l help -d 'Show this message and exit.'
