/**
 * The shell scripts of `ctl completion SHELL`. They are thin: each hands the words typed so far, as the shell holds
 * them (quotes and all), to `ctl __complete --shell SHELL -- WORDS...` and offers what it prints (one candidate per
 * line, for fish and zsh with its description after a tab, shown beside it), falling back to file names when it
 * prints nothing. All knowledge of commands, flags, values and quoting stays in ctl, so the scripts never go stale
 * when the tree changes; completions/ holds the same text, checked by completion.test.ts.
 */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** Where each script is checked in, relative to the package root. */
export const SCRIPT_FILES: Record<Shell, string> = {
  bash: 'completions/ctl.bash',
  zsh: 'completions/_ctl',
  fish: 'completions/ctl.fish',
};

const BASH = `# bash completion for ctl.
# Load it now with:   source <(ctl completion bash)
# or install it as:   ~/.local/share/bash-completion/completions/ctl  (or /etc/bash_completion.d/ctl)

_ctl() {
    local line
    COMPREPLY=()
    # ctl prints each candidate quoted as it goes in place of the word (inside its open quote, if it has one).
    while IFS='' read -r line; do
        COMPREPLY+=("$line")
    done < <(ctl __complete --shell bash -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
}

complete -o default -F _ctl ctl
`;

const ZSH = `#compdef ctl
# zsh completion for ctl.
# Load it now with:   source <(ctl completion zsh)
# or install it as _ctl in a directory of $fpath, before compinit runs.

_ctl() {
    local -a lines values displays
    local line
    local -i width=0 described=0
    lines=("\${(@f)$(ctl __complete --shell zsh -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
    lines=(\${lines:#})
    # A line is a candidate, or a candidate, a tab and its description: listed beside it, one per line.
    for line in "\${lines[@]}"; do
        values+=("\${line%%$'\\t'*}")
        (( \${#values[-1]} > width )) && width=\${#values[-1]}
        [[ "$line" == *$'\\t'* ]] && described=1
    done
    if (( \${#values} == 0 )); then
        _files
    elif (( described )); then
        for line in "\${lines[@]}"; do
            if [[ "$line" == *$'\\t'* ]]; then
                displays+=("\${(r:width:)\${line%%$'\\t'*}}  -- \${line#*$'\\t'}")
            else
                displays+=("$line")
            fi
        done
        compadd -l -d displays -- "\${values[@]}"
    else
        compadd -- "\${values[@]}"
    fi
}

if [[ "\${funcstack[1]}" == "_ctl" ]]; then
    _ctl "$@"
else
    compdef _ctl ctl
fi
`;

const FISH = `# fish completion for ctl.
# Load it now with:   ctl completion fish | source
# or install it as:   ~/.config/fish/completions/ctl.fish

function __ctl_complete
    set -l words (commandline -opc)
    set -e words[1]
    set -l candidates (ctl __complete --shell fish -- $words (commandline -ct) 2>/dev/null)
    if test (count $candidates) -gt 0
        printf '%s\\n' $candidates
    else
        __fish_complete_path (commandline -ct)
    end
end

complete -c ctl -f -a '(__ctl_complete)'
`;

const SCRIPTS: Record<Shell, string> = { bash: BASH, zsh: ZSH, fish: FISH };

export function completionScript(shell: Shell): string {
  return SCRIPTS[shell];
}
