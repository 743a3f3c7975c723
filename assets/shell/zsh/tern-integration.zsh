# tern shell integration for zsh: OSC 133 prompt marks (A prompt, B input, C output,
# D;status finished) and OSC 7 (host and directory). Loaded by tern's .zshenv.

[[ -n ${_tern_integration_loaded-} ]] && return 0
typeset -g _tern_integration_loaded=1
typeset -g _tern_ran=
'builtin' 'unset' TERN_SHELL_INTEGRATION_DIR

autoload -Uz add-zsh-hook

_tern_urlencode() {
    emulate -L zsh
    setopt extendedglob
    local LC_ALL=C
    print -rn -- "${1//(#m)[^a-zA-Z0-9\/._~-]/%${(l:2::0:)$(( [##16] #MATCH ))}}"
}

_tern_precmd() {
    local ret=$?
    if [[ -n $_tern_ran ]]; then
        print -rn -- $'\e]133;D;'"$ret"$'\e\\'
        _tern_ran=
    fi
    print -rn -- $'\e]7;file://'"${HOST}$(_tern_urlencode "$PWD")"$'\e\\'
    print -rn -- $'\e]133;A\e\\'
    # The first prompt: the user's .zshrc has run, so a hook added now runs after
    # theirs and can mark the end of whatever prompt they build.
    if (( ! ${+_tern_deferred} )); then
        typeset -g _tern_deferred=1
        add-zsh-hook precmd _tern_mark_prompt_end
        _tern_mark_prompt_end
    fi
    return $ret
}

_tern_mark_prompt_end() {
    local mark=$'%{\e]133;B\e\\%}'
    [[ $PS1 == *"$mark" ]] || PS1="$PS1$mark"
}

_tern_preexec() {
    _tern_ran=1
    print -rn -- $'\e]133;C\e\\'
}

precmd_functions=(_tern_precmd ${precmd_functions[@]})
add-zsh-hook preexec _tern_preexec
