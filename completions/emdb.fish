# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_emdb_global_optspecs
    string join \n db= read-only lock-timeout= json q/quiet key-format= value-format= hex base64 h/help V/version
end

function __fish_emdb_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_emdb_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_emdb_using_subcommand
    set -l cmd (__fish_emdb_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c emdb -n "__fish_emdb_needs_command" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_needs_command" -l lock-timeout -d 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3' -r
complete -c emdb -n "__fish_emdb_needs_command" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_needs_command" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_needs_command" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_needs_command" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_needs_command" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_needs_command" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_needs_command" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_needs_command" -s V -l version -d 'Print version'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "put" -d 'Store a value under a key (replacing any old value)'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "get" -d 'Print the value of a key and a newline (exit 1 when missing)'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "del" -d 'Delete keys, or every key with a prefix'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "exists" -d 'Exit 0 when the key exists, 1 when it does not'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "count" -d 'Print the number of keys'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "scan" -d 'List keys and values, sorted by key bytes'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "stats" -d 'Sizes and activity counters of the database'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "compact" -d 'Rewrite the file with only live records, reclaiming dead bytes'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "lock" -d 'Inspect or remove the writer lock'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "import" -d 'Load records from a file (or stdin) in JSON Lines, CSV or Redis protocol'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "export" -d 'Write every record to a file (or stdout), sorted by key'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "shell" -d 'Run commands read from stdin, one per line, against one open database'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c emdb -n "__fish_emdb_using_subcommand put" -l file -d 'Read the value from this file' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand put" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand put" -l lock-timeout -d 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3' -r
complete -c emdb -n "__fish_emdb_using_subcommand put" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand put" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand put" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand put" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand put" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand put" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand put" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand put" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand get" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand get" -l lock-timeout -d 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3' -r
complete -c emdb -n "__fish_emdb_using_subcommand get" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand get" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand get" -l raw -d 'Write the exact value bytes, without escaping or a trailing newline'
complete -c emdb -n "__fish_emdb_using_subcommand get" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand get" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand get" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand get" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand get" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand get" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand del" -l prefix -d 'Delete every key starting with this prefix (in atomic batches of 10,000). Shows the count first and asks on a terminal' -r
complete -c emdb -n "__fish_emdb_using_subcommand del" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand del" -l lock-timeout -d 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3' -r
complete -c emdb -n "__fish_emdb_using_subcommand del" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand del" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand del" -s y -l yes -d 'Do not ask for confirmation (required when not on a terminal)'
complete -c emdb -n "__fish_emdb_using_subcommand del" -l dry-run -d 'Only report how many keys would be deleted'
complete -c emdb -n "__fish_emdb_using_subcommand del" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand del" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand del" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand del" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand del" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand del" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand exists" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand exists" -l lock-timeout -d 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3' -r
complete -c emdb -n "__fish_emdb_using_subcommand exists" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand exists" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand exists" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand exists" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand exists" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand exists" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand exists" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand exists" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand count" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand count" -l lock-timeout -d 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3' -r
complete -c emdb -n "__fish_emdb_using_subcommand count" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand count" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand count" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand count" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand count" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand count" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand count" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand count" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l prefix -d 'Only keys starting with these bytes' -r
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l from -d 'Only keys at or after this one (byte order, inclusive)' -r
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l to -d 'Only keys before this one (byte order, exclusive)' -r
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l glob -d 'Only keys matching this glob, applied to the key bytes: `*` any run, `?` one byte, `[a-z]` / `[!a-z]` a class, `\\` escapes' -r
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l limit -d 'Print at most this many records' -r
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l lock-timeout -d 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3' -r
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l keys-only -d 'Print keys without values'
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand scan" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand scan" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand stats" -l format -d 'Output format (`--json` is the same as `--format json`)' -r -f -a "text\t'Aligned, human-readable lines'
json\t'One JSON document'
prometheus\t'OpenMetrics text exposition, for Prometheus'"
complete -c emdb -n "__fish_emdb_using_subcommand stats" -l watch -d 'Refresh every SECS seconds (default 2) until interrupted; redraws in place on a terminal. Each refresh reopens the database read-only' -r
complete -c emdb -n "__fish_emdb_using_subcommand stats" -l count -d 'With --watch: stop after this many refreshes' -r
complete -c emdb -n "__fish_emdb_using_subcommand stats" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand stats" -l lock-timeout -d 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3' -r
complete -c emdb -n "__fish_emdb_using_subcommand stats" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand stats" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand stats" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand stats" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand stats" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand stats" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand stats" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand stats" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand compact" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand compact" -l lock-timeout -d 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3' -r
complete -c emdb -n "__fish_emdb_using_subcommand compact" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand compact" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand compact" -l dry-run -d 'Only print the estimate of reclaimable bytes (the dead bytes)'
complete -c emdb -n "__fish_emdb_using_subcommand compact" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand compact" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand compact" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand compact" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand compact" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand compact" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and not __fish_seen_subcommand_from status break help" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand lock; and not __fish_seen_subcommand_from status break help" -l lock-timeout -d 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3' -r
complete -c emdb -n "__fish_emdb_using_subcommand lock; and not __fish_seen_subcommand_from status break help" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand lock; and not __fish_seen_subcommand_from status break help" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand lock; and not __fish_seen_subcommand_from status break help" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and not __fish_seen_subcommand_from status break help" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and not __fish_seen_subcommand_from status break help" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and not __fish_seen_subcommand_from status break help" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and not __fish_seen_subcommand_from status break help" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and not __fish_seen_subcommand_from status break help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and not __fish_seen_subcommand_from status break help" -f -a "status" -d 'Show who holds the writer lock'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and not __fish_seen_subcommand_from status break help" -f -a "break" -d 'Remove a lock file left behind; refuses while the holder runs'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and not __fish_seen_subcommand_from status break help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from status" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from status" -l lock-timeout -d 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3' -r
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from status" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from status" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from status" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from status" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from status" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from status" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from status" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -l lock-timeout -d 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3' -r
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -l force -d 'DANGEROUS: remove the lock file even while a live process holds the lock. That process keeps writing, and the next writer takes a new lock, so two writers can append to one file and corrupt it. Only for a holder you know is gone or frozen for good (e.g. another host)'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from help" -f -a "status" -d 'Show who holds the writer lock'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from help" -f -a "break" -d 'Remove a lock file left behind; refuses while the holder runs'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c emdb -n "__fish_emdb_using_subcommand import" -l format -d 'Input format [default: from the file extension (.csv, .resp), else jsonl]' -r -f -a "jsonl\t'JSON Lines: a header line, then one `{"key":..,"value":..}` per line'
csv\t'CSV with a `key,value` header row'
resp\t'Redis protocol `SET key value` commands (for `redis-cli --pipe`)'"
complete -c emdb -n "__fish_emdb_using_subcommand import" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand import" -l lock-timeout -d 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3' -r
complete -c emdb -n "__fish_emdb_using_subcommand import" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand import" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand import" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand import" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand import" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand import" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand import" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand export" -l format -d 'Output format [default: from the file extension (.csv, .resp), else jsonl]' -r -f -a "jsonl\t'JSON Lines: a header line, then one `{"key":..,"value":..}` per line'
csv\t'CSV with a `key,value` header row'
resp\t'Redis protocol `SET key value` commands (for `redis-cli --pipe`)'"
complete -c emdb -n "__fish_emdb_using_subcommand export" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand export" -l lock-timeout -d 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3' -r
complete -c emdb -n "__fish_emdb_using_subcommand export" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand export" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand export" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand export" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand export" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand export" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand export" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand shell" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand shell" -l lock-timeout -d 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3' -r
complete -c emdb -n "__fish_emdb_using_subcommand shell" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand shell" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand shell" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand shell" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand shell" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand shell" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand shell" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand shell" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand completions" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand completions" -l lock-timeout -d 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3' -r
complete -c emdb -n "__fish_emdb_using_subcommand completions" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand completions" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand completions" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand completions" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand completions" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand completions" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand completions" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put get del exists count scan stats compact lock import export shell completions help" -f -a "put" -d 'Store a value under a key (replacing any old value)'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put get del exists count scan stats compact lock import export shell completions help" -f -a "get" -d 'Print the value of a key and a newline (exit 1 when missing)'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put get del exists count scan stats compact lock import export shell completions help" -f -a "del" -d 'Delete keys, or every key with a prefix'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put get del exists count scan stats compact lock import export shell completions help" -f -a "exists" -d 'Exit 0 when the key exists, 1 when it does not'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put get del exists count scan stats compact lock import export shell completions help" -f -a "count" -d 'Print the number of keys'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put get del exists count scan stats compact lock import export shell completions help" -f -a "scan" -d 'List keys and values, sorted by key bytes'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put get del exists count scan stats compact lock import export shell completions help" -f -a "stats" -d 'Sizes and activity counters of the database'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put get del exists count scan stats compact lock import export shell completions help" -f -a "compact" -d 'Rewrite the file with only live records, reclaiming dead bytes'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put get del exists count scan stats compact lock import export shell completions help" -f -a "lock" -d 'Inspect or remove the writer lock'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put get del exists count scan stats compact lock import export shell completions help" -f -a "import" -d 'Load records from a file (or stdin) in JSON Lines, CSV or Redis protocol'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put get del exists count scan stats compact lock import export shell completions help" -f -a "export" -d 'Write every record to a file (or stdout), sorted by key'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put get del exists count scan stats compact lock import export shell completions help" -f -a "shell" -d 'Run commands read from stdin, one per line, against one open database'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put get del exists count scan stats compact lock import export shell completions help" -f -a "completions" -d 'Print a shell completion script'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put get del exists count scan stats compact lock import export shell completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c emdb -n "__fish_emdb_using_subcommand help; and __fish_seen_subcommand_from lock" -f -a "status" -d 'Show who holds the writer lock'
complete -c emdb -n "__fish_emdb_using_subcommand help; and __fish_seen_subcommand_from lock" -f -a "break" -d 'Remove a lock file left behind; refuses while the holder runs'
