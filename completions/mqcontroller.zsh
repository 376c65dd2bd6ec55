#compdef mqcontroller
# zsh completion for mqcontroller, generated from its CLI by `python -m mqadmin_py.completions`.
# Do not edit: run `make completions`. Static: nothing runs Python at TAB time. Install: completions/README.md.

_mqcontroller() {
  _arguments \
    '(-c --configFile)-c[Controller properties file (controllerPeers, controllerSelfId, ...).]:configFile:_files' \
    '(-c --configFile)--configFile[Controller properties file (controllerPeers, controllerSelfId, ...).]:configFile:_files' \
    '(-p --printConfigItem)-p[Print the effective configuration and exit.]' \
    '(-p --printConfigItem)--printConfigItem[Print the effective configuration and exit.]' \
    '(--log-level)--log-level[DEBUG, INFO, WARNING or ERROR.]:log-level: ' \
    '(--version)--version[Print the version and exit.]' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

# Autoloaded from $fpath this file is the body of _mqcontroller; sourced (after compinit) it registers.
if [[ $funcstack[1] == _mqcontroller ]]; then
  _mqcontroller "$@"
else
  compdef _mqcontroller mqcontroller
fi
