# tern shell integration for bash: OSC 133 prompt marks (A prompt, B input, C output,
# D;status finished) and OSC 7 (host and directory). tern starts bash as
# `bash --posix` with ENV pointing here, so bash reads this file and nothing else;
# this file then leaves POSIX mode and reads the user's own startup files first, the
# way bash would have, and installs its hooks after them. No user file is changed.
# Turn it off with `shell_integration: false` in tern's config.

if [ -n "${TERN_BASH_INJECT-}" ]; then
    builtin declare __tern_bash_flags="$TERN_BASH_INJECT"
    builtin unset ENV TERN_BASH_INJECT
    if [ -n "${TERN_BASH_ENV-}" ]; then
        builtin export ENV="$TERN_BASH_ENV"
        builtin unset TERN_BASH_ENV
    fi
    builtin set +o posix
    # POSIX mode gave HISTFILE another default; put bash's back unless the user set one.
    if [ -n "${TERN_BASH_UNEXPORT_HISTFILE-}" ]; then
        builtin export -n HISTFILE
        builtin unset TERN_BASH_UNEXPORT_HISTFILE
    fi
    # The startup files bash reads (see INVOCATION in bash(1)).
    if builtin shopt -q login_shell; then
        if [[ $__tern_bash_flags != *--noprofile* ]]; then
            [ -r /etc/profile ] && builtin source /etc/profile
            for __tern_rc in "$HOME/.bash_profile" "$HOME/.bash_login" "$HOME/.profile"; do
                [ -r "$__tern_rc" ] && { builtin source "$__tern_rc"; break; }
            done
        fi
        # Folders tern was started with that the profile dropped (Debian's
        # /etc/profile sets PATH afresh) go back, after the profile's own.
        if [ -n "${TERN_BASH_PATH-}" ]; then
            builtin declare __tern_dirs __tern_dir
            IFS=: builtin read -r -a __tern_dirs <<< "$TERN_BASH_PATH"
            for __tern_dir in "${__tern_dirs[@]}"; do
                case ":$PATH:" in
                    *":$__tern_dir:"*) ;;
                    *) [ -n "$__tern_dir" ] && PATH="${PATH:+$PATH:}$__tern_dir" ;;
                esac
            done
            builtin unset __tern_dirs __tern_dir
        fi
    elif [[ $__tern_bash_flags != *--norc* ]]; then
        for __tern_rc in /etc/bash.bashrc /etc/bash/bashrc /etc/bashrc; do
            [ -r "$__tern_rc" ] && { builtin source "$__tern_rc"; break; }
        done
        [ -r "$HOME/.bashrc" ] && builtin source "$HOME/.bashrc"
    fi
    builtin unset __tern_rc __tern_bash_flags
fi
builtin unset TERN_BASH_PATH
# Programs started from this shell must not see tern's folder (zsh and fish drop it too).
builtin unset TERN_SHELL_INTEGRATION_DIR

# Only interactive shells, only once.
[[ $- == *i* ]] || builtin return 0
[[ -n ${__tern_integration_loaded-} ]] && builtin return 0
__tern_integration_loaded=1

# PS0 sets this (an arithmetic subscript assigns in the shell itself) when a command
# line is about to run, so an empty line reports no finished command.
__tern_ran=
__tern_never=()

__tern_urlencode() {
    builtin local LC_ALL=C s="$1" out="" c i
    for ((i = 0; i < ${#s}; i++)); do
        c="${s:i:1}"
        case "$c" in
            [a-zA-Z0-9/._~-]) out+="$c" ;;
            *) builtin printf -v c '%%%02X' "'$c"; out+="$c" ;;
        esac
    done
    builtin printf '%s' "$out"
}

__tern_prompt_start() {
    builtin local status=$?
    if [[ -n $__tern_ran ]]; then
        builtin printf '\e]133;D;%s\e\\' "$status"
        __tern_ran=
    fi
    builtin printf '\e]7;file://%s%s\e\\' "${HOSTNAME-}" "$(__tern_urlencode "$PWD")"
    builtin printf '\e]133;A\e\\'
    builtin return $status
}

__tern_mark_b='\[\e]133;B\e\\\]'
__tern_prompt_end() {
    builtin local status=$?
    # Prompt themes rewrite PS1 on every prompt: mark its end again when they did.
    [[ $PS1 == *"$__tern_mark_b" ]] || PS1="$PS1$__tern_mark_b"
    builtin return $status
}

PS0='${__tern_never[__tern_ran=1]}\e]133;C\e\\'"${PS0-}"
if ((BASH_VERSINFO[0] > 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] >= 1))); then
    # bash 5.1+: PROMPT_COMMAND may be an array; ours run first and last.
    PROMPT_COMMAND=(__tern_prompt_start "${PROMPT_COMMAND[@]}" __tern_prompt_end)
else
    PROMPT_COMMAND="__tern_prompt_start${PROMPT_COMMAND:+; $PROMPT_COMMAND}; __tern_prompt_end"
fi
