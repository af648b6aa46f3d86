# fish completion for vx. Load it for this shell with
#   vx completion fish | source
# or install it: vx completion fish > ~/.config/fish/completions/vx.fish
# It asks vx itself (vx __complete ...), so the tasks and projects offered
# are those of the workspace the cursor's command would run in.
function __vx_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l out (command $tokens[1] __complete $tokens[2..-1] "$cur" 2>/dev/null)
    or return
    test (count $out) -gt 0; or return
    for l in $out[2..-1]
        echo $l
    end
    if test "$out[1]" = ":files"
        __fish_complete_path "$cur"
    end
end
complete -c vx -f -a '(__vx_complete)'
