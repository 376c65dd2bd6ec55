#compdef mqagent
# zsh completion for mqagent, generated from its CLI by `python -m mqadmin_py.completions`.
# Do not edit: run `make completions`. Static: nothing runs Python at TAB time. Install: completions/README.md.

_mqagent() {
  _arguments \
    '(-c --configFile)-c[Agent properties file (listenPort, brokerConfigPaths, ...).]:configFile:_files' \
    '(-c --configFile)--configFile[Agent properties file (listenPort, brokerConfigPaths, ...).]:configFile:_files' \
    '(-p --printConfigItem)-p[Print the effective configuration and exit.]' \
    '(-p --printConfigItem)--printConfigItem[Print the effective configuration and exit.]' \
    '(--log-level)--log-level[DEBUG, INFO, WARNING or ERROR.]:log-level: ' \
    '(--version)--version[Print the version and exit.]' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

# Autoloaded from $fpath this file is the body of _mqagent; sourced (after compinit) it registers.
if [[ $funcstack[1] == _mqagent ]]; then
  _mqagent "$@"
else
  compdef _mqagent mqagent
fi
