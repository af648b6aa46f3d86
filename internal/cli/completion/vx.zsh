#compdef vx
# zsh completion for vx. Load it for this shell with
#   source <(vx completion zsh)
# (after compinit), or install it as _vx in a directory of $fpath:
#   vx completion zsh > "${fpath[1]}/_vx"
# It asks vx itself (vx __complete ...), so the tasks and projects offered
# are those of the workspace the cursor's command would run in.
_vx() {
  local out directive l name desc
  local -a lines pairs
  out=$(command ${(Q)words[1]} __complete "${(@Q)words[2,CURRENT]}" 2>/dev/null) || return 1
  lines=("${(@f)out}")
  directive=$lines[1]
  shift lines
  for l in $lines; do
    name=${l%%$'\t'*}
    desc=""
    [[ $l == *$'\t'* ]] && desc=${l#*$'\t'}
    name=${name//:/\\:}
    if [[ -n $desc ]]; then
      pairs+=("$name:$desc")
    else
      pairs+=("$name")
    fi
  done
  (( $#pairs )) && _describe -t vx 'vx' pairs
  [[ $directive == :files ]] && _files
  return 0
}
if [[ $funcstack[1] == _vx ]]; then
  _vx "$@"
else
  compdef _vx vx
fi
