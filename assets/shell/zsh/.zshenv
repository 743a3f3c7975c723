# tern shell integration for zsh. tern points ZDOTDIR here; this file puts the user's
# ZDOTDIR back, reads the user's own .zshenv, and (interactive shells only) loads the
# integration. zsh then reads the user's .zprofile, .zshrc and .zlogin as usual. No
# user file is changed. Turn it off with `shell_integration: false` in tern's config.

if [[ -n "${TERN_ZSH_ZDOTDIR+X}" ]]; then
    'builtin' 'export' ZDOTDIR="$TERN_ZSH_ZDOTDIR"
    'builtin' 'unset' 'TERN_ZSH_ZDOTDIR'
else
    'builtin' 'unset' 'ZDOTDIR'
fi

{
    'builtin' 'typeset' _tern_file="${ZDOTDIR-$HOME}/.zshenv"
    [[ ! -r "$_tern_file" ]] || 'builtin' 'source' -- "$_tern_file"
} always {
    if [[ -o 'interactive' && -n "${TERN_SHELL_INTEGRATION_DIR-}" ]]; then
        'builtin' 'source' -- "$TERN_SHELL_INTEGRATION_DIR/zsh/tern-integration.zsh"
    fi
    'builtin' 'unset' '_tern_file'
}
