
use builtin;
use str;

set edit:completion:arg-completer[emdb] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'emdb'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'emdb'= {
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand put 'Store a value under a key (replacing any old value)'
            cand get 'Print the value of a key and a newline (exit 1 when missing)'
            cand del 'Delete keys, or every key with a prefix'
            cand exists 'Exit 0 when the key exists, 1 when it does not'
            cand count 'Print the number of keys'
            cand scan 'List keys and values, sorted by key bytes'
            cand stats 'Sizes and activity counters of the database'
            cand compact 'Rewrite the file with only live records, reclaiming dead bytes'
            cand lock 'Inspect or remove the writer lock'
            cand import 'Load records from a file (or stdin) in JSON Lines, CSV or Redis protocol'
            cand export 'Write every record to a file (or stdout), sorted by key'
            cand shell 'Run commands read from stdin, one per line, against one open database'
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'emdb;put'= {
            cand --file 'Read the value from this file'
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;get'= {
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --raw 'Write the exact value bytes, without escaping or a trailing newline'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;del'= {
            cand --prefix 'Delete every key starting with this prefix (in atomic batches of 10,000). Shows the count first and asks on a terminal'
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand -y 'Do not ask for confirmation (required when not on a terminal)'
            cand --yes 'Do not ask for confirmation (required when not on a terminal)'
            cand --dry-run 'Only report how many keys would be deleted'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;exists'= {
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;count'= {
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;scan'= {
            cand --prefix 'Only keys starting with these bytes'
            cand --from 'Only keys at or after this one (byte order, inclusive)'
            cand --to 'Only keys before this one (byte order, exclusive)'
            cand --glob 'Only keys matching this glob, applied to the key bytes: `*` any run, `?` one byte, `[a-z]` / `[!a-z]` a class, `\` escapes'
            cand --limit 'Print at most this many records'
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --keys-only 'Print keys without values'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;stats'= {
            cand --format 'Output format (`--json` is the same as `--format json`)'
            cand --watch 'Refresh every SECS seconds (default 2) until interrupted; redraws in place on a terminal. Each refresh reopens the database read-only'
            cand --count 'With --watch: stop after this many refreshes'
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;compact'= {
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --dry-run 'Only print the estimate of reclaimable bytes (the dead bytes)'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;lock'= {
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand status 'Show who holds the writer lock'
            cand break 'Remove a lock file left behind; refuses while the holder runs'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'emdb;lock;status'= {
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;lock;break'= {
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --force 'DANGEROUS: remove the lock file even while a live process holds the lock. That process keeps writing, and the next writer takes a new lock, so two writers can append to one file and corrupt it. Only for a holder you know is gone or frozen for good (e.g. another host)'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;lock;help'= {
            cand status 'Show who holds the writer lock'
            cand break 'Remove a lock file left behind; refuses while the holder runs'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'emdb;lock;help;status'= {
        }
        &'emdb;lock;help;break'= {
        }
        &'emdb;lock;help;help'= {
        }
        &'emdb;import'= {
            cand --format 'Input format [default: from the file extension (.csv, .resp), else jsonl]'
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;export'= {
            cand --format 'Output format [default: from the file extension (.csv, .resp), else jsonl]'
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;shell'= {
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;completions'= {
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;help'= {
            cand put 'Store a value under a key (replacing any old value)'
            cand get 'Print the value of a key and a newline (exit 1 when missing)'
            cand del 'Delete keys, or every key with a prefix'
            cand exists 'Exit 0 when the key exists, 1 when it does not'
            cand count 'Print the number of keys'
            cand scan 'List keys and values, sorted by key bytes'
            cand stats 'Sizes and activity counters of the database'
            cand compact 'Rewrite the file with only live records, reclaiming dead bytes'
            cand lock 'Inspect or remove the writer lock'
            cand import 'Load records from a file (or stdin) in JSON Lines, CSV or Redis protocol'
            cand export 'Write every record to a file (or stdout), sorted by key'
            cand shell 'Run commands read from stdin, one per line, against one open database'
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'emdb;help;put'= {
        }
        &'emdb;help;get'= {
        }
        &'emdb;help;del'= {
        }
        &'emdb;help;exists'= {
        }
        &'emdb;help;count'= {
        }
        &'emdb;help;scan'= {
        }
        &'emdb;help;stats'= {
        }
        &'emdb;help;compact'= {
        }
        &'emdb;help;lock'= {
            cand status 'Show who holds the writer lock'
            cand break 'Remove a lock file left behind; refuses while the holder runs'
        }
        &'emdb;help;lock;status'= {
        }
        &'emdb;help;lock;break'= {
        }
        &'emdb;help;import'= {
        }
        &'emdb;help;export'= {
        }
        &'emdb;help;shell'= {
        }
        &'emdb;help;completions'= {
        }
        &'emdb;help;help'= {
        }
    ]
    $completions[$command]
}
