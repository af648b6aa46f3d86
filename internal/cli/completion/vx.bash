# bash completion for vx. Load it for this shell with
#   source <(vx completion bash)
# or install it: vx completion bash > /etc/bash_completion.d/vx
# It asks vx itself (vx __complete ...), so the tasks and projects offered
# are those of the workspace the cursor's command would run in.
_vx() {
    local line=${COMP_LINE:0:COMP_POINT}
    local -a words=()
    read -r -a words <<< "$line"
    # A line ending in a blank completes a new, empty word.
    if [[ ${#words[@]} -eq 0 || $line == *[[:space:]] ]]; then
        words+=("")
    fi
    local cur=${words[${#words[@]}-1]}
    local prog=${words[0]:-vx}
    [[ $prog == "~/"* ]] && prog=$HOME/${prog#"~/"}
    local out
    out=$(command "$prog" __complete "${words[@]:1}" 2>/dev/null) || return 0

    local directive="" first=1 l
    local -a cands=()
    while IFS= read -r l; do
        if ((first)); then
            directive=$l
            first=0
            continue
        fi
        cands+=("${l%%$'\t'*}")
    done <<< "$out"

    # bash completes only what follows the last word-break character of the
    # word (":" in build:prod, "=" in --filter=web): drop what comes before.
    local pre="" breaks=${COMP_WORDBREAKS//[^=:]/}
    if [[ -n $breaks && $cur == *["$breaks"]* ]]; then
        pre=${cur%"${cur##*["$breaks"]}"}
    fi
    COMPREPLY=()
    local c
    for c in "${cands[@]}"; do
        COMPREPLY+=("${c#"$pre"}")
    done
    if [[ $directive == :files ]]; then
        compopt -o filenames 2>/dev/null
        while IFS= read -r l; do
            COMPREPLY+=("$l")
        done < <(compgen -f -- "$cur")
    fi
    return 0
}
complete -F _vx vx
