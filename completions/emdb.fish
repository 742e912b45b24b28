# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_emdb_global_optspecs
    string join \n db= read-only lock-timeout= n/namespace= json q/quiet key-format= value-format= hex base64 passphrase-file= key-file= h/help V/version
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
complete -c emdb -n "__fish_emdb_needs_command" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_needs_command" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_needs_command" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_needs_command" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_needs_command" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_needs_command" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_needs_command" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_needs_command" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_needs_command" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_needs_command" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_needs_command" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_needs_command" -s V -l version -d 'Print version'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "put" -d 'Store a value under a key (replacing any old value)'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "incr" -d 'Add to an integer value atomically and print the result (a missing key counts as 0)'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "decr" -d 'Subtract from an integer value atomically and print the result (a missing key counts as 0)'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "get" -d 'Print the value of a key and a newline (exit 1 when missing)'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "del" -d 'Delete keys, or every key with a prefix'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "exists" -d 'Exit 0 when the key exists, 1 when it does not'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "count" -d 'Print the number of keys (in the namespace of -n)'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "scan" -d 'List keys and values, sorted by key bytes'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "stats" -d 'Sizes and activity counters of the database'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "compact" -d 'Rewrite the file with only live records, reclaiming dead bytes'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "lock" -d 'Inspect or remove the writer lock'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "import" -d 'Load records from a file (or stdin) in JSON Lines, CSV or Redis protocol, or copy the string keys of a Redis server (--from)'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "export" -d 'Write every record, with its namespace and expiry, to a file (or stdout); all namespaces, or only the one -n names'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "ttl" -d 'Print the time left before a key expires (exit 1 when missing)'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "expire" -d 'Make a key expire DURATION from now (exit 1 when missing)'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "persist" -d 'Remove the expiry of a key, so it lives until deleted (exit 1 when missing)'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "ns" -d 'List or drop namespaces'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "backup" -d 'Write a consistent copy of the database to DEST while writers go on'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "check" -d 'Verify every record\'s checksum (and seal); report damage with offsets'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "encrypt" -d 'Encrypt a plain database with the secret from --passphrase-file, --key-file, EMDB_PASSPHRASE, EMDB_KEY_FILE or a prompt'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "decrypt" -d 'Decrypt an encrypted database into a plain one (the old file is deleted once the new one is verified; --keep-backup keeps it)'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "rotate-key" -d 'Re-encrypt a database under a new key or passphrase'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "bench" -d 'Measure the seed workloads: sequential set, get, mixed 50% get / 40% set / 10% delete, latency percentiles, reopen and replay time'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "shell" -d 'Run commands read from stdin, one per line, against one open database'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "sync" -d 'Copy the database into Redis or a Redis Cluster, then (with --follow) keep applying the writer\'s changes; resumable'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c emdb -n "__fish_emdb_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c emdb -n "__fish_emdb_using_subcommand put" -l file -d 'Read the value from this file' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand put" -l ttl -d 'Expire the key this long from now: 500ms, 30s, 10m, 2h (a bare number is seconds; at most 100 years). Without it the key never expires (an old expiry is removed)' -r
complete -c emdb -n "__fish_emdb_using_subcommand put" -l if-value -d 'Write only when the key\'s current value is OLD (compare-and-set, in the value encoding in force); else write nothing and exit 1. The check and the write are one transaction under the writer lock. OLD may start with `-` (`--if-value -5`)' -r
complete -c emdb -n "__fish_emdb_using_subcommand put" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand put" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand put" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand put" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand put" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand put" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand put" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand put" -l if-absent -d 'Write only when the key does not exist yet; else write nothing and exit 1. The check and the write are one transaction under the writer lock'
complete -c emdb -n "__fish_emdb_using_subcommand put" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand put" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand put" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand put" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand put" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand put" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand incr" -l by -d 'The amount: a decimal 64-bit integer, may be negative (no `+`, leading zeros or spaces, as for the stored value)' -r
complete -c emdb -n "__fish_emdb_using_subcommand incr" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand incr" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand incr" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand incr" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand incr" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand incr" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand incr" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand incr" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand incr" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand incr" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand incr" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand incr" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand incr" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand decr" -l by -d 'The amount: a decimal 64-bit integer, may be negative (no `+`, leading zeros or spaces, as for the stored value)' -r
complete -c emdb -n "__fish_emdb_using_subcommand decr" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand decr" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand decr" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand decr" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand decr" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand decr" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand decr" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand decr" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand decr" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand decr" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand decr" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand decr" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand decr" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand get" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand get" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand get" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand get" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand get" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand get" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand get" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand get" -l raw -d 'Write the exact value bytes, without escaping or a trailing newline'
complete -c emdb -n "__fish_emdb_using_subcommand get" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand get" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand get" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand get" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand get" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand get" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand del" -l prefix -d 'Delete every key starting with this prefix (in atomic batches of 10,000). Shows the count first and asks on a terminal' -r
complete -c emdb -n "__fish_emdb_using_subcommand del" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand del" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand del" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand del" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand del" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand del" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand del" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand del" -s y -l yes -d 'Do not ask for confirmation (required when not on a terminal)'
complete -c emdb -n "__fish_emdb_using_subcommand del" -l dry-run -d 'Only report how many keys would be deleted'
complete -c emdb -n "__fish_emdb_using_subcommand del" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand del" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand del" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand del" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand del" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand del" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand exists" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand exists" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand exists" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand exists" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand exists" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand exists" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand exists" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand exists" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand exists" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand exists" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand exists" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand exists" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand exists" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand count" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand count" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand count" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand count" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand count" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand count" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand count" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand count" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand count" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand count" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand count" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand count" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand count" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l prefix -d 'Only keys starting with these bytes' -r
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l from -d 'Only keys at or after this one (byte order, inclusive)' -r
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l to -d 'Only keys before this one (byte order, exclusive)' -r
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l glob -d 'Only keys matching this glob, given as text and applied to the key bytes: `*` any run, `?` one byte, `[a-z]` / `[!a-z]` a class, `\\` escapes. Refused (exit 2) with keys in hex or base64' -r
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l limit -d 'Print at most this many records' -r
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand scan" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l keys-only -d 'Print keys without values'
complete -c emdb -n "__fish_emdb_using_subcommand scan" -s 0 -l null -d 'End each key (and each value) with a NUL byte instead of a tab or newline, and print text unescaped, as the exact bytes: for `xargs -0` and other NUL-separated readers. Hex and base64 still apply when chosen'
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand scan" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand scan" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand scan" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand stats" -l format -d 'Output format (`--json` is the same as `--format json`)' -r -f -a "text\t'Aligned, human-readable lines'
json\t'One JSON document'
prometheus\t'OpenMetrics text exposition, for Prometheus'"
complete -c emdb -n "__fish_emdb_using_subcommand stats" -l watch -d 'Refresh every SECS seconds (default 2) until interrupted; redraws in place on a terminal. Off a terminal (a pipe, a log file) each tick prints one JSON line with a `timestamp_ms` field instead of a table' -r
complete -c emdb -n "__fish_emdb_using_subcommand stats" -l count -d 'With --watch: stop after this many refreshes' -r
complete -c emdb -n "__fish_emdb_using_subcommand stats" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand stats" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand stats" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand stats" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand stats" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand stats" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand stats" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand stats" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand stats" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand stats" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand stats" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand stats" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand stats" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand compact" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand compact" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand compact" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand compact" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand compact" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand compact" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand compact" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand compact" -l dry-run -d 'Only print the estimate of reclaimable bytes (the dead bytes)'
complete -c emdb -n "__fish_emdb_using_subcommand compact" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand compact" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand compact" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand compact" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand compact" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand compact" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and not __fish_seen_subcommand_from status break help" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand lock; and not __fish_seen_subcommand_from status break help" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand lock; and not __fish_seen_subcommand_from status break help" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand lock; and not __fish_seen_subcommand_from status break help" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand lock; and not __fish_seen_subcommand_from status break help" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand lock; and not __fish_seen_subcommand_from status break help" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand lock; and not __fish_seen_subcommand_from status break help" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
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
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from status" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from status" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from status" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from status" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from status" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from status" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from status" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from status" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from status" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from status" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from status" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -l force -d 'DANGEROUS: remove the lock file even while a live process holds the lock, so that another writer can open the database. The holder notices the next writer at its next write or flush and refuses to write from then on (restart it); anything it had not flushed is lost. Only for a holder you know is gone or frozen for good (e.g. on another host). Asks for confirmation, or pass --yes'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -s y -l yes -d 'Do not ask before --force removes a held lock'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from break" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from help" -f -a "status" -d 'Show who holds the writer lock'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from help" -f -a "break" -d 'Remove a lock file left behind; refuses while the holder runs'
complete -c emdb -n "__fish_emdb_using_subcommand lock; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c emdb -n "__fish_emdb_using_subcommand import" -l from -d 'Copy the string keys of a Redis server instead, with their TTLs, using SCAN: redis://[:PASSWORD@]HOST:PORT[/DB]. Keys of other types are counted and reported, not copied; keys go to -n\'s namespace, else the default one' -r
complete -c emdb -n "__fish_emdb_using_subcommand import" -l format -d 'Input format [default: from the file extension (.csv, .resp), else jsonl]' -r -f -a "jsonl\t'JSON Lines: a header line, then one `{"key":..,"value":..}` per line'
csv\t'CSV with a header row: key,value[,ns][,expires_at_ms]'
resp\t'Redis protocol `SET key value [PXAT ms]` commands (for `redis-cli --pipe`)'"
complete -c emdb -n "__fish_emdb_using_subcommand import" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand import" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand import" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand import" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand import" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand import" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand import" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand import" -l atomic -d 'Write the whole input as one atomic unit: every record or none (at most 1 GiB of keys and values, held in memory until the end)'
complete -c emdb -n "__fish_emdb_using_subcommand import" -l dry-run -d 'Read and check the whole input and count what would be imported; write nothing and create no database'
complete -c emdb -n "__fish_emdb_using_subcommand import" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand import" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand import" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand import" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand import" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand export" -l format -d 'Output format [default: from the file extension (.csv, .resp), else jsonl]' -r -f -a "jsonl\t'JSON Lines: a header line, then one `{"key":..,"value":..}` per line'
csv\t'CSV with a header row: key,value[,ns][,expires_at_ms]'
resp\t'Redis protocol `SET key value [PXAT ms]` commands (for `redis-cli --pipe`)'"
complete -c emdb -n "__fish_emdb_using_subcommand export" -l prefix -d 'Only keys starting with these bytes, in each namespace exported (read in --hex / --base64 like other key arguments). Streams just that range of the sorted order' -r
complete -c emdb -n "__fish_emdb_using_subcommand export" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand export" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand export" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand export" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand export" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand export" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand export" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand export" -l force -d 'Replace FILE when it exists already (without it, an existing file is refused with exit 2 and left alone)'
complete -c emdb -n "__fish_emdb_using_subcommand export" -l salvage -d 'Export what still verifies from a damaged database, and report what was skipped, without changing it: the file is copied to a private temporary directory (TMPDIR; room for about twice its size) and the copy is salvaged as `check --repair` would'
complete -c emdb -n "__fish_emdb_using_subcommand export" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand export" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand export" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand export" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand export" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand ttl" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand ttl" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand ttl" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand ttl" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand ttl" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand ttl" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand ttl" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand ttl" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand ttl" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand ttl" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand ttl" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand ttl" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand ttl" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand expire" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand expire" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand expire" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand expire" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand expire" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand expire" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand expire" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand expire" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand expire" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand expire" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand expire" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand expire" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand expire" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand persist" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand persist" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand persist" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand persist" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand persist" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand persist" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand persist" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand persist" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand persist" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand persist" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand persist" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand persist" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand persist" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand ns; and not __fish_seen_subcommand_from list drop help" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand ns; and not __fish_seen_subcommand_from list drop help" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand ns; and not __fish_seen_subcommand_from list drop help" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand ns; and not __fish_seen_subcommand_from list drop help" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand ns; and not __fish_seen_subcommand_from list drop help" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand ns; and not __fish_seen_subcommand_from list drop help" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand ns; and not __fish_seen_subcommand_from list drop help" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand ns; and not __fish_seen_subcommand_from list drop help" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand ns; and not __fish_seen_subcommand_from list drop help" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand ns; and not __fish_seen_subcommand_from list drop help" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand ns; and not __fish_seen_subcommand_from list drop help" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand ns; and not __fish_seen_subcommand_from list drop help" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand ns; and not __fish_seen_subcommand_from list drop help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand ns; and not __fish_seen_subcommand_from list drop help" -f -a "list" -d 'List the named namespaces and their key counts (tab-separated)'
complete -c emdb -n "__fish_emdb_using_subcommand ns; and not __fish_seen_subcommand_from list drop help" -f -a "drop" -d 'Drop a namespace and every key in it (asks on a terminal)'
complete -c emdb -n "__fish_emdb_using_subcommand ns; and not __fish_seen_subcommand_from list drop help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from list" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from list" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from list" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from list" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from list" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from list" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from list" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from list" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from list" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from list" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from list" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from list" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from drop" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from drop" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from drop" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from drop" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from drop" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from drop" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from drop" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from drop" -s y -l yes -d 'Do not ask for confirmation (required when not on a terminal)'
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from drop" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from drop" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from drop" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from drop" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from drop" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from drop" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the named namespaces and their key counts (tab-separated)'
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from help" -f -a "drop" -d 'Drop a namespace and every key in it (asks on a terminal)'
complete -c emdb -n "__fish_emdb_using_subcommand ns; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c emdb -n "__fish_emdb_using_subcommand backup" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand backup" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand backup" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand backup" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand backup" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand backup" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand backup" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand backup" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand backup" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand backup" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand backup" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand backup" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand backup" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand check" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand check" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand check" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand check" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand check" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand check" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand check" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand check" -l repair -d 'Salvage a damaged database: drop the damaged records and rewrite the file (the damaged file is kept as `<db>.before-repair`). Asks first on a terminal'
complete -c emdb -n "__fish_emdb_using_subcommand check" -s y -l yes -d 'Do not ask for confirmation (required for --repair when not on a terminal)'
complete -c emdb -n "__fish_emdb_using_subcommand check" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand check" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand check" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand check" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand check" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand encrypt" -l cipher -d 'The cipher: AES-256-GCM (fastest with AES instructions) or ChaCha20-Poly1305' -r -f -a "aes\t'AES-256-GCM'
chacha\t'ChaCha20-Poly1305'"
complete -c emdb -n "__fish_emdb_using_subcommand encrypt" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand encrypt" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand encrypt" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand encrypt" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand encrypt" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand encrypt" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand encrypt" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand encrypt" -s y -l yes -d 'Do not ask for confirmation (required when not on a terminal)'
complete -c emdb -n "__fish_emdb_using_subcommand encrypt" -l keep-backup -d 'Keep the old file as `<db>.encbak`. By default it is deleted once every record of the rewritten file has been read back under the new secret (the backup holds the data in plaintext after `encrypt`, and under the old key after `rotate-key`)'
complete -c emdb -n "__fish_emdb_using_subcommand encrypt" -l remove-backup -d 'Deprecated and ignored: deleting the backup is the default now. It does not remove a `<db>.encbak` left by an earlier run (that still exits 8); kept so that older scripts still run'
complete -c emdb -n "__fish_emdb_using_subcommand encrypt" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand encrypt" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand encrypt" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand encrypt" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand encrypt" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand encrypt" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand decrypt" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand decrypt" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand decrypt" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand decrypt" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand decrypt" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand decrypt" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand decrypt" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand decrypt" -s y -l yes -d 'Do not ask for confirmation (required when not on a terminal)'
complete -c emdb -n "__fish_emdb_using_subcommand decrypt" -l keep-backup -d 'Keep the old file as `<db>.encbak`. By default it is deleted once every record of the rewritten file has been read back under the new secret (the backup holds the data in plaintext after `encrypt`, and under the old key after `rotate-key`)'
complete -c emdb -n "__fish_emdb_using_subcommand decrypt" -l remove-backup -d 'Deprecated and ignored: deleting the backup is the default now. It does not remove a `<db>.encbak` left by an earlier run (that still exits 8); kept so that older scripts still run'
complete -c emdb -n "__fish_emdb_using_subcommand decrypt" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand decrypt" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand decrypt" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand decrypt" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand decrypt" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand decrypt" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand rotate-key" -l new-passphrase-file -d 'Read the new passphrase from FILE (without a trailing newline)' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand rotate-key" -l new-key-file -d 'Read the new raw key from FILE: 32 bytes, or 64 hex digits' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand rotate-key" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand rotate-key" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand rotate-key" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand rotate-key" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand rotate-key" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand rotate-key" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand rotate-key" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand rotate-key" -s y -l yes -d 'Do not ask for confirmation (required when not on a terminal)'
complete -c emdb -n "__fish_emdb_using_subcommand rotate-key" -l keep-backup -d 'Keep the old file as `<db>.encbak`. By default it is deleted once every record of the rewritten file has been read back under the new secret (the backup holds the data in plaintext after `encrypt`, and under the old key after `rotate-key`)'
complete -c emdb -n "__fish_emdb_using_subcommand rotate-key" -l remove-backup -d 'Deprecated and ignored: deleting the backup is the default now. It does not remove a `<db>.encbak` left by an earlier run (that still exits 8); kept so that older scripts still run'
complete -c emdb -n "__fish_emdb_using_subcommand rotate-key" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand rotate-key" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand rotate-key" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand rotate-key" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand rotate-key" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand rotate-key" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand bench" -l records -d 'Records written by the sequential set (and the key space of the other workloads)' -r
complete -c emdb -n "__fish_emdb_using_subcommand bench" -l value-size -d 'Bytes per value' -r
complete -c emdb -n "__fish_emdb_using_subcommand bench" -l threads -d 'Threads sharing each workload (each its own connection for Redis)' -r
complete -c emdb -n "__fish_emdb_using_subcommand bench" -l redis -d 'Also run the workloads against the Redis server at URL (`redis://[[user]:password@]host[:port][/db]`; without a password in the URL, REDISCLI_AUTH is used as redis-cli does). Its keys start with `emdb-bench:` and are deleted afterwards' -r
complete -c emdb -n "__fish_emdb_using_subcommand bench" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand bench" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand bench" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand bench" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand bench" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand bench" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand bench" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand bench" -l keep -d 'Keep the database file given with --db instead of removing it'
complete -c emdb -n "__fish_emdb_using_subcommand bench" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand bench" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand bench" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand bench" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand bench" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand bench" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand shell" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand shell" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand shell" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand shell" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand shell" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand shell" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand shell" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand shell" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand shell" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand shell" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand shell" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand shell" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand shell" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand sync" -l to -d 'Target: redis://[[user]:password@]HOST:PORT[/DB]; with --cluster, a seed node of the cluster (repeat --to for more seeds)' -r
complete -c emdb -n "__fish_emdb_using_subcommand sync" -l ns-prefix -d 'Redis key prefix of a named namespace: %n is the name, %% a percent sign (\'{%n}:\' keeps a namespace in one cluster slot). The default namespace maps to the bare key' -r
complete -c emdb -n "__fish_emdb_using_subcommand sync" -l state-file -d 'Keep the cursor in this local file instead of in the target' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand sync" -l retry-for -d 'How long to retry a failing target (with backoff) before giving up with exit 9' -r
complete -c emdb -n "__fish_emdb_using_subcommand sync" -l interval -d 'How often a status line (or a JSON tick with --json) is printed' -r
complete -c emdb -n "__fish_emdb_using_subcommand sync" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand sync" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand sync" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand sync" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand sync" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand sync" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand sync" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand sync" -l cluster -d 'The target is a Redis Cluster (keys are routed by slot)'
complete -c emdb -n "__fish_emdb_using_subcommand sync" -l follow -d 'After the full copy, keep following the writer until stopped'
complete -c emdb -n "__fish_emdb_using_subcommand sync" -l reset -d 'Ignore a saved cursor: clear the target\'s keys and copy again'
complete -c emdb -n "__fish_emdb_using_subcommand sync" -l allow-eviction -d 'Sync into a target that evicts keys when full (a maxmemory with a maxmemory-policy other than noeviction): the keys it evicts are lost from the copy without notice. Refused (exit 2) without this flag'
complete -c emdb -n "__fish_emdb_using_subcommand sync" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand sync" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand sync" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand sync" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand sync" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand sync" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand completions" -l db -d 'Database file [default: the platform data directory\'s emdb/emdb-default.emdb]' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand completions" -l lock-timeout -d 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once' -r
complete -c emdb -n "__fish_emdb_using_subcommand completions" -s n -l namespace -d 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them' -r
complete -c emdb -n "__fish_emdb_using_subcommand completions" -l key-format -d 'Encoding of keys in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand completions" -l value-format -d 'Encoding of values in arguments, stdin, output, import and export' -r -f -a "text\t'UTF-8 text, bytes as given; non-printable output is escaped'
hex\t'Two hex digits per byte'
base64\t'Standard base64 with padding'"
complete -c emdb -n "__fish_emdb_using_subcommand completions" -l passphrase-file -d 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand completions" -l key-file -d 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable' -r -F
complete -c emdb -n "__fish_emdb_using_subcommand completions" -l read-only -d 'Never write: reading commands only (writing ones fail with exit 2)'
complete -c emdb -n "__fish_emdb_using_subcommand completions" -l json -d 'Print results as JSON (one document, or one object per line for streams)'
complete -c emdb -n "__fish_emdb_using_subcommand completions" -s q -l quiet -d 'No progress bars and no status reports; data and errors still print'
complete -c emdb -n "__fish_emdb_using_subcommand completions" -l hex -d 'Shorthand for --key-format hex --value-format hex'
complete -c emdb -n "__fish_emdb_using_subcommand completions" -l base64 -d 'Shorthand for --key-format base64 --value-format base64'
complete -c emdb -n "__fish_emdb_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "put" -d 'Store a value under a key (replacing any old value)'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "incr" -d 'Add to an integer value atomically and print the result (a missing key counts as 0)'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "decr" -d 'Subtract from an integer value atomically and print the result (a missing key counts as 0)'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "get" -d 'Print the value of a key and a newline (exit 1 when missing)'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "del" -d 'Delete keys, or every key with a prefix'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "exists" -d 'Exit 0 when the key exists, 1 when it does not'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "count" -d 'Print the number of keys (in the namespace of -n)'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "scan" -d 'List keys and values, sorted by key bytes'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "stats" -d 'Sizes and activity counters of the database'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "compact" -d 'Rewrite the file with only live records, reclaiming dead bytes'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "lock" -d 'Inspect or remove the writer lock'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "import" -d 'Load records from a file (or stdin) in JSON Lines, CSV or Redis protocol, or copy the string keys of a Redis server (--from)'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "export" -d 'Write every record, with its namespace and expiry, to a file (or stdout); all namespaces, or only the one -n names'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "ttl" -d 'Print the time left before a key expires (exit 1 when missing)'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "expire" -d 'Make a key expire DURATION from now (exit 1 when missing)'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "persist" -d 'Remove the expiry of a key, so it lives until deleted (exit 1 when missing)'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "ns" -d 'List or drop namespaces'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "backup" -d 'Write a consistent copy of the database to DEST while writers go on'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "check" -d 'Verify every record\'s checksum (and seal); report damage with offsets'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "encrypt" -d 'Encrypt a plain database with the secret from --passphrase-file, --key-file, EMDB_PASSPHRASE, EMDB_KEY_FILE or a prompt'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "decrypt" -d 'Decrypt an encrypted database into a plain one (the old file is deleted once the new one is verified; --keep-backup keeps it)'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "rotate-key" -d 'Re-encrypt a database under a new key or passphrase'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "bench" -d 'Measure the seed workloads: sequential set, get, mixed 50% get / 40% set / 10% delete, latency percentiles, reopen and replay time'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "shell" -d 'Run commands read from stdin, one per line, against one open database'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "sync" -d 'Copy the database into Redis or a Redis Cluster, then (with --follow) keep applying the writer\'s changes; resumable'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "completions" -d 'Print a shell completion script'
complete -c emdb -n "__fish_emdb_using_subcommand help; and not __fish_seen_subcommand_from put incr decr get del exists count scan stats compact lock import export ttl expire persist ns backup check encrypt decrypt rotate-key bench shell sync completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c emdb -n "__fish_emdb_using_subcommand help; and __fish_seen_subcommand_from lock" -f -a "status" -d 'Show who holds the writer lock'
complete -c emdb -n "__fish_emdb_using_subcommand help; and __fish_seen_subcommand_from lock" -f -a "break" -d 'Remove a lock file left behind; refuses while the holder runs'
complete -c emdb -n "__fish_emdb_using_subcommand help; and __fish_seen_subcommand_from ns" -f -a "list" -d 'List the named namespaces and their key counts (tab-separated)'
complete -c emdb -n "__fish_emdb_using_subcommand help; and __fish_seen_subcommand_from ns" -f -a "drop" -d 'Drop a namespace and every key in it (asks on a terminal)'
