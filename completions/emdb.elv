
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
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
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
            cand incr 'Add to an integer value atomically and print the result (a missing key counts as 0)'
            cand decr 'Subtract from an integer value atomically and print the result (a missing key counts as 0)'
            cand get 'Print the value of a key and a newline (exit 1 when missing)'
            cand del 'Delete keys, or every key with a prefix'
            cand exists 'Exit 0 when the key exists, 1 when it does not'
            cand count 'Print the number of keys (in the namespace of -n)'
            cand scan 'List keys and values, sorted by key bytes'
            cand stats 'Sizes and activity counters of the database'
            cand compact 'Rewrite the file with only live records, reclaiming dead bytes'
            cand lock 'Inspect or remove the writer lock'
            cand import 'Load records from a file (or stdin) in JSON Lines, CSV or Redis protocol, or copy the string keys of a Redis server (--from)'
            cand export 'Write every record, with its namespace and expiry, to a file (or stdout); all namespaces, or only the one -n names'
            cand ttl 'Print the time left before a key expires (exit 1 when missing)'
            cand expire 'Make a key expire DURATION from now (exit 1 when missing)'
            cand persist 'Remove the expiry of a key, so it lives until deleted (exit 1 when missing)'
            cand ns 'List or drop namespaces'
            cand backup 'Write a consistent copy of the database to DEST while writers go on'
            cand check 'Verify every record''s checksum (and seal); report damage with offsets'
            cand encrypt 'Encrypt a plain database with the secret from --passphrase-file, --key-file, EMDB_PASSPHRASE, EMDB_KEY_FILE or a prompt'
            cand decrypt 'Decrypt an encrypted database into a plain one (the old file is deleted once the new one is verified; --keep-backup keeps it)'
            cand rotate-key 'Re-encrypt a database under a new key or passphrase'
            cand bench 'Measure the seed workloads: sequential set, get, mixed 50% get / 40% set / 10% delete, latency percentiles, reopen and replay time'
            cand shell 'Run commands read from stdin, one per line, against one open database'
            cand sync 'Copy the database into Redis or a Redis Cluster, then (with --follow) keep applying the writer''s changes; resumable'
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'emdb;put'= {
            cand --file 'Read the value from this file'
            cand --ttl 'Expire the key this long from now: 500ms, 30s, 10m, 2h (a bare number is seconds; at most 100 years). Without it the key never expires (an old expiry is removed)'
            cand --if-value 'Write only when the key''s current value is OLD (compare-and-set, in the value encoding in force); else write nothing and exit 1. The check and the write are one transaction under the writer lock. OLD may start with `-` (`--if-value -5`)'
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
            cand --if-absent 'Write only when the key does not exist yet; else write nothing and exit 1. The check and the write are one transaction under the writer lock'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;incr'= {
            cand --by 'The amount: a decimal 64-bit integer, may be negative (no `+`, leading zeros or spaces, as for the stored value)'
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;decr'= {
            cand --by 'The amount: a decimal 64-bit integer, may be negative (no `+`, leading zeros or spaces, as for the stored value)'
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
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
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
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
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
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
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
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
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
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
            cand --glob 'Only keys matching this glob, given as text and applied to the key bytes: `*` any run, `?` one byte, `[a-z]` / `[!a-z]` a class, `\` escapes. Refused (exit 2) with keys in hex or base64'
            cand --limit 'Print at most this many records'
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
            cand --keys-only 'Print keys without values'
            cand -0 'End each key (and each value) with a NUL byte instead of a tab or newline, and print text unescaped, as the exact bytes: for `xargs -0` and other NUL-separated readers. Hex and base64 still apply when chosen'
            cand --null 'End each key (and each value) with a NUL byte instead of a tab or newline, and print text unescaped, as the exact bytes: for `xargs -0` and other NUL-separated readers. Hex and base64 still apply when chosen'
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
            cand --watch 'Refresh every SECS seconds (default 2) until interrupted; redraws in place on a terminal. Off a terminal (a pipe, a log file) each tick prints one JSON line with a `timestamp_ms` field instead of a table'
            cand --count 'With --watch: stop after this many refreshes'
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
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
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
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
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
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
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
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
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
            cand --force 'DANGEROUS: remove the lock file even while a live process holds the lock, so that another writer can open the database. The holder notices the next writer at its next write or flush and refuses to write from then on (restart it); anything it had not flushed is lost. Only for a holder you know is gone or frozen for good (e.g. on another host). Asks for confirmation, or pass --yes'
            cand -y 'Do not ask before --force removes a held lock'
            cand --yes 'Do not ask before --force removes a held lock'
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
            cand --from 'Copy the string keys of a Redis server instead, with their TTLs, using SCAN: redis://[:PASSWORD@]HOST:PORT[/DB]. Keys of other types are counted and reported, not copied; keys go to -n''s namespace, else the default one'
            cand --format 'Input format [default: from the file extension (.csv, .resp), else jsonl]'
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
            cand --atomic 'Write the whole input as one atomic unit: every record or none (at most 1 GiB of keys and values, held in memory until the end)'
            cand --dry-run 'Read and check the whole input and count what would be imported; write nothing and create no database'
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
            cand --prefix 'Only keys starting with these bytes, in each namespace exported (read in --hex / --base64 like other key arguments). Streams just that range of the sorted order'
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
            cand --force 'Replace FILE when it exists already (without it, an existing file is refused with exit 2 and left alone)'
            cand --salvage 'Export what still verifies from a damaged database, and report what was skipped, without changing it: the file is copied to a private temporary directory (TMPDIR; room for about twice its size) and the copy is salvaged as `check --repair` would'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;ttl'= {
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;expire'= {
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;persist'= {
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;ns'= {
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand list 'List the named namespaces and their key counts (tab-separated)'
            cand drop 'Drop a namespace and every key in it (asks on a terminal)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'emdb;ns;list'= {
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;ns;drop'= {
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
            cand -y 'Do not ask for confirmation (required when not on a terminal)'
            cand --yes 'Do not ask for confirmation (required when not on a terminal)'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;ns;help'= {
            cand list 'List the named namespaces and their key counts (tab-separated)'
            cand drop 'Drop a namespace and every key in it (asks on a terminal)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'emdb;ns;help;list'= {
        }
        &'emdb;ns;help;drop'= {
        }
        &'emdb;ns;help;help'= {
        }
        &'emdb;backup'= {
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;check'= {
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
            cand --repair 'Salvage a damaged database: drop the damaged records and rewrite the file (the damaged file is kept as `<db>.before-repair`). Asks first on a terminal'
            cand -y 'Do not ask for confirmation (required for --repair when not on a terminal)'
            cand --yes 'Do not ask for confirmation (required for --repair when not on a terminal)'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;encrypt'= {
            cand --cipher 'The cipher: AES-256-GCM (fastest with AES instructions) or ChaCha20-Poly1305'
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
            cand -y 'Do not ask for confirmation (required when not on a terminal)'
            cand --yes 'Do not ask for confirmation (required when not on a terminal)'
            cand --keep-backup 'Keep the old file as `<db>.encbak`. By default it is deleted once every record of the rewritten file has been read back under the new secret (the backup holds the data in plaintext after `encrypt`, and under the old key after `rotate-key`)'
            cand --remove-backup 'Deprecated and ignored: deleting the backup is the default now. It does not remove a `<db>.encbak` left by an earlier run (that still exits 8); kept so that older scripts still run'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;decrypt'= {
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
            cand -y 'Do not ask for confirmation (required when not on a terminal)'
            cand --yes 'Do not ask for confirmation (required when not on a terminal)'
            cand --keep-backup 'Keep the old file as `<db>.encbak`. By default it is deleted once every record of the rewritten file has been read back under the new secret (the backup holds the data in plaintext after `encrypt`, and under the old key after `rotate-key`)'
            cand --remove-backup 'Deprecated and ignored: deleting the backup is the default now. It does not remove a `<db>.encbak` left by an earlier run (that still exits 8); kept so that older scripts still run'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;rotate-key'= {
            cand --new-passphrase-file 'Read the new passphrase from FILE (without a trailing newline)'
            cand --new-key-file 'Read the new raw key from FILE: 32 bytes, or 64 hex digits'
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
            cand -y 'Do not ask for confirmation (required when not on a terminal)'
            cand --yes 'Do not ask for confirmation (required when not on a terminal)'
            cand --keep-backup 'Keep the old file as `<db>.encbak`. By default it is deleted once every record of the rewritten file has been read back under the new secret (the backup holds the data in plaintext after `encrypt`, and under the old key after `rotate-key`)'
            cand --remove-backup 'Deprecated and ignored: deleting the backup is the default now. It does not remove a `<db>.encbak` left by an earlier run (that still exits 8); kept so that older scripts still run'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;bench'= {
            cand --records 'Records written by the sequential set (and the key space of the other workloads)'
            cand --value-size 'Bytes per value'
            cand --threads 'Threads sharing each workload (each its own connection for Redis)'
            cand --redis 'Also run the workloads against the Redis server at URL (`redis://[[user]:password@]host[:port][/db]`; without a password in the URL, REDISCLI_AUTH is used as redis-cli does). Its keys start with `emdb-bench:` and are deleted afterwards'
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
            cand --keep 'Keep the database file given with --db instead of removing it'
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
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
            cand --read-only 'Never write: reading commands only (writing ones fail with exit 2)'
            cand --json 'Print results as JSON (one document, or one object per line for streams)'
            cand -q 'No progress bars and no status reports; data and errors still print'
            cand --quiet 'No progress bars and no status reports; data and errors still print'
            cand --hex 'Shorthand for --key-format hex --value-format hex'
            cand --base64 'Shorthand for --key-format base64 --value-format base64'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'emdb;sync'= {
            cand --to 'Target: redis://[[user]:password@]HOST:PORT[/DB]; with --cluster, a seed node of the cluster (repeat --to for more seeds)'
            cand --ns-prefix 'Redis key prefix of a named namespace: %n is the name, %% a percent sign (''{%n}:'' keeps a namespace in one cluster slot). The default namespace maps to the bare key'
            cand --state-file 'Keep the cursor in this local file instead of in the target'
            cand --retry-for 'How long to retry a failing target (with backoff) before giving up with exit 9'
            cand --interval 'How often a status line (or a JSON tick with --json) is printed'
            cand --db 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]'
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
            cand --cluster 'The target is a Redis Cluster (keys are routed by slot)'
            cand --follow 'After the full copy, keep following the writer until stopped'
            cand --reset 'Ignore a saved cursor: clear the target''s keys and copy again'
            cand --allow-eviction 'Sync into a target that evicts keys when full (a maxmemory with a maxmemory-policy other than noeviction): the keys it evicts are lost from the copy without notice. Refused (exit 2) without this flag'
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
            cand --lock-timeout 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once'
            cand -n 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --namespace 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them'
            cand --key-format 'Encoding of keys in arguments, stdin, output, import and export'
            cand --value-format 'Encoding of values in arguments, stdin, output, import and export'
            cand --passphrase-file 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted'
            cand --key-file 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable'
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
            cand incr 'Add to an integer value atomically and print the result (a missing key counts as 0)'
            cand decr 'Subtract from an integer value atomically and print the result (a missing key counts as 0)'
            cand get 'Print the value of a key and a newline (exit 1 when missing)'
            cand del 'Delete keys, or every key with a prefix'
            cand exists 'Exit 0 when the key exists, 1 when it does not'
            cand count 'Print the number of keys (in the namespace of -n)'
            cand scan 'List keys and values, sorted by key bytes'
            cand stats 'Sizes and activity counters of the database'
            cand compact 'Rewrite the file with only live records, reclaiming dead bytes'
            cand lock 'Inspect or remove the writer lock'
            cand import 'Load records from a file (or stdin) in JSON Lines, CSV or Redis protocol, or copy the string keys of a Redis server (--from)'
            cand export 'Write every record, with its namespace and expiry, to a file (or stdout); all namespaces, or only the one -n names'
            cand ttl 'Print the time left before a key expires (exit 1 when missing)'
            cand expire 'Make a key expire DURATION from now (exit 1 when missing)'
            cand persist 'Remove the expiry of a key, so it lives until deleted (exit 1 when missing)'
            cand ns 'List or drop namespaces'
            cand backup 'Write a consistent copy of the database to DEST while writers go on'
            cand check 'Verify every record''s checksum (and seal); report damage with offsets'
            cand encrypt 'Encrypt a plain database with the secret from --passphrase-file, --key-file, EMDB_PASSPHRASE, EMDB_KEY_FILE or a prompt'
            cand decrypt 'Decrypt an encrypted database into a plain one (the old file is deleted once the new one is verified; --keep-backup keeps it)'
            cand rotate-key 'Re-encrypt a database under a new key or passphrase'
            cand bench 'Measure the seed workloads: sequential set, get, mixed 50% get / 40% set / 10% delete, latency percentiles, reopen and replay time'
            cand shell 'Run commands read from stdin, one per line, against one open database'
            cand sync 'Copy the database into Redis or a Redis Cluster, then (with --follow) keep applying the writer''s changes; resumable'
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'emdb;help;put'= {
        }
        &'emdb;help;incr'= {
        }
        &'emdb;help;decr'= {
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
        &'emdb;help;ttl'= {
        }
        &'emdb;help;expire'= {
        }
        &'emdb;help;persist'= {
        }
        &'emdb;help;ns'= {
            cand list 'List the named namespaces and their key counts (tab-separated)'
            cand drop 'Drop a namespace and every key in it (asks on a terminal)'
        }
        &'emdb;help;ns;list'= {
        }
        &'emdb;help;ns;drop'= {
        }
        &'emdb;help;backup'= {
        }
        &'emdb;help;check'= {
        }
        &'emdb;help;encrypt'= {
        }
        &'emdb;help;decrypt'= {
        }
        &'emdb;help;rotate-key'= {
        }
        &'emdb;help;bench'= {
        }
        &'emdb;help;shell'= {
        }
        &'emdb;help;sync'= {
        }
        &'emdb;help;completions'= {
        }
        &'emdb;help;help'= {
        }
    ]
    $completions[$command]
}
