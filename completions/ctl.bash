# bash completion for ctl.
# Load it now with:   source <(ctl completion bash)
# or install it as:   ~/.local/share/bash-completion/completions/ctl  (or /etc/bash_completion.d/ctl)

_ctl() {
    local line quoted
    COMPREPLY=()
    # Quoted for the shell: entity names may hold spaces or other special characters.
    while IFS='' read -r line; do
        printf -v quoted '%q' "$line"
        COMPREPLY+=("$quoted")
    done < <(ctl __complete -- "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
}

complete -o default -F _ctl ctl
