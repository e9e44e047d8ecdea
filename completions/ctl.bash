# bash completion for ctl.
# Load it now with:   source <(ctl completion bash)
# or install it as:   ~/.local/share/bash-completion/completions/ctl  (or /etc/bash_completion.d/ctl)

_ctl() {
    local line
    COMPREPLY=()
    # ctl prints each candidate quoted as it goes in place of the word (inside its open quote, if it has one).
    while IFS='' read -r line; do
        COMPREPLY+=("$line")
    done < <(ctl __complete --shell bash -- "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
}

complete -o default -F _ctl ctl
