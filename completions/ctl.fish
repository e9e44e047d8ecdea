# fish completion for ctl.
# Load it now with:   ctl completion fish | source
# or install it as:   ~/.config/fish/completions/ctl.fish

function __ctl_complete
    set -l words (commandline -opc)
    set -e words[1]
    set -l candidates (ctl __complete --shell fish -- $words (commandline -ct) 2>/dev/null)
    if test (count $candidates) -gt 0
        printf '%s\n' $candidates
    else
        __fish_complete_path (commandline -ct)
    end
end

complete -c ctl -f -a '(__ctl_complete)'
