# tern shell integration for fish: OSC 133 prompt marks (A prompt, B input, C output,
# D;status finished) and OSC 7 (host and directory). tern puts this folder first in
# XDG_DATA_DIRS; fish reads vendor_conf.d before the user's own config, which is left
# alone. Turn it off with `shell_integration: false` in tern's config.

status is-interactive; or exit 0
set -q __tern_integration_loaded; and exit 0
set -g __tern_integration_loaded 1

# Take our folder back out so programs started from this shell do not see it.
if set -q TERN_SHELL_INTEGRATION_DIR
    set -l ours $TERN_SHELL_INTEGRATION_DIR
    set -gx XDG_DATA_DIRS (string match -v -- $ours $XDG_DATA_DIRS)
    if test (count $XDG_DATA_DIRS) -eq 0
        set -e XDG_DATA_DIRS
    end
    set -e TERN_SHELL_INTEGRATION_DIR
end

# fish 4 marks its prompts itself; only the directory report is ours there.
set -l major (string split -f1 . $version)
if test "$major" -ge 4
    function __tern_report_cwd --on-event fish_prompt
        printf '\e]7;file://%s%s\e\\' (hostname) (string escape --style=url -- $PWD)
    end
    exit 0
end

function __tern_prompt_start --on-event fish_prompt
    printf '\e]7;file://%s%s\e\\' (hostname) (string escape --style=url -- $PWD)
    printf '\e]133;A\e\\'
    # The first prompt: the user's config has defined fish_prompt; wrap it once so
    # the end of the prompt is marked.
    if not set -q __tern_wrapped
        set -g __tern_wrapped 1
        if functions -q fish_prompt
            functions -c fish_prompt __tern_user_prompt
            function fish_prompt
                __tern_user_prompt
                printf '\e]133;B\e\\'
            end
        end
    end
end

function __tern_preexec --on-event fish_preexec
    printf '\e]133;C\e\\'
end

function __tern_postexec --on-event fish_postexec
    printf '\e]133;D;%s\e\\' $status
end
