# fish completion for mqcontroller, generated from its CLI by `python -m mqadmin_py.completions`.
# Do not edit: run `make completions`. Static: nothing runs Python at TAB time. Install: completions/README.md.

function __mqcontroller_complete_path --description 'Print the mqcontroller command path before the cursor'
    set -l path mqcontroller
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
                    case 'mqcontroller'
                        contains -- $word -c --configFile --log-level; and set need 1
                end
            case '*'
        end
    end
    echo $path
end

function __mqcontroller_complete_at --description 'Is the mqcontroller command path one of the arguments?'
    contains -- (__mqcontroller_complete_path) $argv
end

complete -c mqcontroller -f

# mqcontroller
complete -c mqcontroller -n "__mqcontroller_complete_at 'mqcontroller'" -s c -l configFile -r -F -d 'Controller properties file (controllerPeers, controllerSelfId, ...).'
complete -c mqcontroller -n "__mqcontroller_complete_at 'mqcontroller'" -s p -l printConfigItem -d 'Print the effective configuration and exit.'
complete -c mqcontroller -n "__mqcontroller_complete_at 'mqcontroller'" -l log-level -x -d 'DEBUG, INFO, WARNING or ERROR.'
complete -c mqcontroller -n "__mqcontroller_complete_at 'mqcontroller'" -l version -d 'Print the version and exit.'
complete -c mqcontroller -n "__mqcontroller_complete_at 'mqcontroller'" -s h -l help -d 'Show this message and exit.'
