
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'emdb' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'emdb'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'emdb' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('put', 'put', [CompletionResultType]::ParameterValue, 'Store a value under a key (replacing any old value)')
            [CompletionResult]::new('incr', 'incr', [CompletionResultType]::ParameterValue, 'Add to an integer value atomically and print the result (a missing key counts as 0)')
            [CompletionResult]::new('decr', 'decr', [CompletionResultType]::ParameterValue, 'Subtract from an integer value atomically and print the result (a missing key counts as 0)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Print the value of a key and a newline (exit 1 when missing)')
            [CompletionResult]::new('del', 'del', [CompletionResultType]::ParameterValue, 'Delete keys, or every key with a prefix')
            [CompletionResult]::new('exists', 'exists', [CompletionResultType]::ParameterValue, 'Exit 0 when the key exists, 1 when it does not')
            [CompletionResult]::new('count', 'count', [CompletionResultType]::ParameterValue, 'Print the number of keys (in the namespace of -n)')
            [CompletionResult]::new('scan', 'scan', [CompletionResultType]::ParameterValue, 'List keys and values, sorted by key bytes')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Sizes and activity counters of the database')
            [CompletionResult]::new('compact', 'compact', [CompletionResultType]::ParameterValue, 'Rewrite the file with only live records, reclaiming dead bytes')
            [CompletionResult]::new('lock', 'lock', [CompletionResultType]::ParameterValue, 'Inspect or remove the writer lock')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Load records from a file (or stdin) in JSON Lines, CSV or Redis protocol, or copy the string keys of a Redis server (--from)')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write every record, with its namespace and expiry, to a file (or stdout); all namespaces, or only the one -n names')
            [CompletionResult]::new('ttl', 'ttl', [CompletionResultType]::ParameterValue, 'Print the time left before a key expires (exit 1 when missing)')
            [CompletionResult]::new('expire', 'expire', [CompletionResultType]::ParameterValue, 'Make a key expire DURATION from now (exit 1 when missing)')
            [CompletionResult]::new('persist', 'persist', [CompletionResultType]::ParameterValue, 'Remove the expiry of a key, so it lives until deleted (exit 1 when missing)')
            [CompletionResult]::new('ns', 'ns', [CompletionResultType]::ParameterValue, 'List or drop namespaces')
            [CompletionResult]::new('backup', 'backup', [CompletionResultType]::ParameterValue, 'Write a consistent copy of the database to DEST while writers go on')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Verify every record''s checksum (and seal); report damage with offsets')
            [CompletionResult]::new('encrypt', 'encrypt', [CompletionResultType]::ParameterValue, 'Encrypt a plain database with the secret from --passphrase-file, --key-file, EMDB_PASSPHRASE, EMDB_KEY_FILE or a prompt')
            [CompletionResult]::new('decrypt', 'decrypt', [CompletionResultType]::ParameterValue, 'Decrypt an encrypted database into a plain one (the old file is deleted once the new one is verified; --keep-backup keeps it)')
            [CompletionResult]::new('rotate-key', 'rotate-key', [CompletionResultType]::ParameterValue, 'Re-encrypt a database under a new key or passphrase')
            [CompletionResult]::new('bench', 'bench', [CompletionResultType]::ParameterValue, 'Measure the seed workloads: sequential set, get, mixed 50% get / 40% set / 10% delete, latency percentiles, reopen and replay time')
            [CompletionResult]::new('shell', 'shell', [CompletionResultType]::ParameterValue, 'Run commands read from stdin, one per line, against one open database')
            [CompletionResult]::new('sync', 'sync', [CompletionResultType]::ParameterValue, 'Copy the database into Redis or a Redis Cluster, then (with --follow) keep applying the writer''s changes; resumable')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'emdb;put' {
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'Read the value from this file')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Expire the key this long from now: 500ms, 30s, 10m, 2h (a bare number is seconds; at most 100 years). Without it the key never expires (an old expiry is removed)')
            [CompletionResult]::new('--if-value', '--if-value', [CompletionResultType]::ParameterName, 'Write only when the key''s current value is OLD (compare-and-set, in the value encoding in force); else write nothing and exit 1. The check and the write are one transaction under the writer lock. OLD may start with `-` (`--if-value -5`)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--if-absent', '--if-absent', [CompletionResultType]::ParameterName, 'Write only when the key does not exist yet; else write nothing and exit 1. The check and the write are one transaction under the writer lock')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;incr' {
            [CompletionResult]::new('--by', '--by', [CompletionResultType]::ParameterName, 'The amount: a decimal 64-bit integer, may be negative (no `+`, leading zeros or spaces, as for the stored value)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;decr' {
            [CompletionResult]::new('--by', '--by', [CompletionResultType]::ParameterName, 'The amount: a decimal 64-bit integer, may be negative (no `+`, leading zeros or spaces, as for the stored value)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;get' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Write the exact value bytes, without escaping or a trailing newline')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;del' {
            [CompletionResult]::new('--prefix', '--prefix', [CompletionResultType]::ParameterName, 'Delete every key starting with this prefix (in atomic batches of 10,000). Shows the count first and asks on a terminal')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Only report how many keys would be deleted')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;exists' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;count' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;scan' {
            [CompletionResult]::new('--prefix', '--prefix', [CompletionResultType]::ParameterName, 'Only keys starting with these bytes')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Only keys at or after this one (byte order, inclusive)')
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'Only keys before this one (byte order, exclusive)')
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'Only keys matching this glob, given as text and applied to the key bytes: `*` any run, `?` one byte, `[a-z]` / `[!a-z]` a class, `\` escapes. Refused (exit 2) with keys in hex or base64')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Print at most this many records')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--keys-only', '--keys-only', [CompletionResultType]::ParameterName, 'Print keys without values')
            [CompletionResult]::new('-0', '-0', [CompletionResultType]::ParameterName, 'End each key (and each value) with a NUL byte instead of a tab or newline, and print text unescaped, as the exact bytes: for `xargs -0` and other NUL-separated readers. Hex and base64 still apply when chosen')
            [CompletionResult]::new('--null', '--null', [CompletionResultType]::ParameterName, 'End each key (and each value) with a NUL byte instead of a tab or newline, and print text unescaped, as the exact bytes: for `xargs -0` and other NUL-separated readers. Hex and base64 still apply when chosen')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;stats' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format (`--json` is the same as `--format json`)')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Refresh every SECS seconds (default 2) until interrupted; redraws in place on a terminal. Off a terminal (a pipe, a log file) each tick prints one JSON line with a `timestamp_ms` field instead of a table')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'With --watch: stop after this many refreshes')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;compact' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Only print the estimate of reclaimable bytes (the dead bytes)')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;lock' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show who holds the writer lock')
            [CompletionResult]::new('break', 'break', [CompletionResultType]::ParameterValue, 'Remove a lock file left behind; refuses while the holder runs')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'emdb;lock;status' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;lock;break' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'DANGEROUS: remove the lock file even while a live process holds the lock, so that another writer can open the database. The holder notices the next writer at its next write or flush and refuses to write from then on (restart it); anything it had not flushed is lost. Only for a holder you know is gone or frozen for good (e.g. on another host). Asks for confirmation, or pass --yes')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask before --force removes a held lock')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask before --force removes a held lock')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;lock;help' {
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show who holds the writer lock')
            [CompletionResult]::new('break', 'break', [CompletionResultType]::ParameterValue, 'Remove a lock file left behind; refuses while the holder runs')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'emdb;lock;help;status' {
            break
        }
        'emdb;lock;help;break' {
            break
        }
        'emdb;lock;help;help' {
            break
        }
        'emdb;import' {
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Copy the string keys of a Redis server instead, with their TTLs, using SCAN: redis://[:PASSWORD@]HOST:PORT[/DB]. Keys of other types are counted and reported, not copied; keys go to -n''s namespace, else the default one')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Input format [default: from the file extension (.csv, .resp), else jsonl]')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--atomic', '--atomic', [CompletionResultType]::ParameterName, 'Write the whole input as one atomic unit: every record or none (at most 1 GiB of keys and values, held in memory until the end)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Read and check the whole input and count what would be imported; write nothing and create no database')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;export' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format [default: from the file extension (.csv, .resp), else jsonl]')
            [CompletionResult]::new('--prefix', '--prefix', [CompletionResultType]::ParameterName, 'Only keys starting with these bytes, in each namespace exported (read in --hex / --base64 like other key arguments). Streams just that range of the sorted order')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace FILE when it exists already (without it, an existing file is refused with exit 2 and left alone)')
            [CompletionResult]::new('--salvage', '--salvage', [CompletionResultType]::ParameterName, 'Export what still verifies from a damaged database, and report what was skipped, without changing it: the file is copied to a private temporary directory (TMPDIR; room for about twice its size) and the copy is salvaged as `check --repair` would')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;ttl' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;expire' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;persist' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;ns' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the named namespaces and their key counts (tab-separated)')
            [CompletionResult]::new('drop', 'drop', [CompletionResultType]::ParameterValue, 'Drop a namespace and every key in it (asks on a terminal)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'emdb;ns;list' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;ns;drop' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;ns;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the named namespaces and their key counts (tab-separated)')
            [CompletionResult]::new('drop', 'drop', [CompletionResultType]::ParameterValue, 'Drop a namespace and every key in it (asks on a terminal)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'emdb;ns;help;list' {
            break
        }
        'emdb;ns;help;drop' {
            break
        }
        'emdb;ns;help;help' {
            break
        }
        'emdb;backup' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;check' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--repair', '--repair', [CompletionResultType]::ParameterName, 'Salvage a damaged database: drop the damaged records and rewrite the file (the damaged file is kept as `<db>.before-repair`). Asks first on a terminal')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required for --repair when not on a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required for --repair when not on a terminal)')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;encrypt' {
            [CompletionResult]::new('--cipher', '--cipher', [CompletionResultType]::ParameterName, 'The cipher: AES-256-GCM (fastest with AES instructions) or ChaCha20-Poly1305')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--keep-backup', '--keep-backup', [CompletionResultType]::ParameterName, 'Keep the old file as `<db>.encbak`. By default it is deleted once every record of the rewritten file has been read back under the new secret (the backup holds the data in plaintext after `encrypt`, and under the old key after `rotate-key`)')
            [CompletionResult]::new('--remove-backup', '--remove-backup', [CompletionResultType]::ParameterName, 'Deprecated and ignored: deleting the backup is the default now. It does not remove a `<db>.encbak` left by an earlier run (that still exits 8); kept so that older scripts still run')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;decrypt' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--keep-backup', '--keep-backup', [CompletionResultType]::ParameterName, 'Keep the old file as `<db>.encbak`. By default it is deleted once every record of the rewritten file has been read back under the new secret (the backup holds the data in plaintext after `encrypt`, and under the old key after `rotate-key`)')
            [CompletionResult]::new('--remove-backup', '--remove-backup', [CompletionResultType]::ParameterName, 'Deprecated and ignored: deleting the backup is the default now. It does not remove a `<db>.encbak` left by an earlier run (that still exits 8); kept so that older scripts still run')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;rotate-key' {
            [CompletionResult]::new('--new-passphrase-file', '--new-passphrase-file', [CompletionResultType]::ParameterName, 'Read the new passphrase from FILE (without a trailing newline)')
            [CompletionResult]::new('--new-key-file', '--new-key-file', [CompletionResultType]::ParameterName, 'Read the new raw key from FILE: 32 bytes, or 64 hex digits')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--keep-backup', '--keep-backup', [CompletionResultType]::ParameterName, 'Keep the old file as `<db>.encbak`. By default it is deleted once every record of the rewritten file has been read back under the new secret (the backup holds the data in plaintext after `encrypt`, and under the old key after `rotate-key`)')
            [CompletionResult]::new('--remove-backup', '--remove-backup', [CompletionResultType]::ParameterName, 'Deprecated and ignored: deleting the backup is the default now. It does not remove a `<db>.encbak` left by an earlier run (that still exits 8); kept so that older scripts still run')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;bench' {
            [CompletionResult]::new('--records', '--records', [CompletionResultType]::ParameterName, 'Records written by the sequential set (and the key space of the other workloads)')
            [CompletionResult]::new('--value-size', '--value-size', [CompletionResultType]::ParameterName, 'Bytes per value')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Threads sharing each workload (each its own connection for Redis)')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Also run the workloads against the Redis server at URL (`redis://[[user]:password@]host[:port][/db]`; without a password in the URL, REDISCLI_AUTH is used as redis-cli does). Its keys start with `emdb-bench:` and are deleted afterwards')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--keep', '--keep', [CompletionResultType]::ParameterName, 'Keep the database file given with --db instead of removing it')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;shell' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;sync' {
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'Target: redis://[[user]:password@]HOST:PORT[/DB]; with --cluster, a seed node of the cluster (repeat --to for more seeds)')
            [CompletionResult]::new('--ns-prefix', '--ns-prefix', [CompletionResultType]::ParameterName, 'Redis key prefix of a named namespace: %n is the name, %% a percent sign (''{%n}:'' keeps a namespace in one cluster slot). The default namespace maps to the bare key')
            [CompletionResult]::new('--state-file', '--state-file', [CompletionResultType]::ParameterName, 'Keep the cursor in this local file instead of in the target')
            [CompletionResult]::new('--retry-for', '--retry-for', [CompletionResultType]::ParameterName, 'How long to retry a failing target (with backoff) before giving up with exit 9')
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'How often a status line (or a JSON tick with --json) is printed')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The target is a Redis Cluster (keys are routed by slot)')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'After the full copy, keep following the writer until stopped')
            [CompletionResult]::new('--reset', '--reset', [CompletionResultType]::ParameterName, 'Ignore a saved cursor: clear the target''s keys and copy again')
            [CompletionResult]::new('--allow-eviction', '--allow-eviction', [CompletionResultType]::ParameterName, 'Sync into a target that evicts keys when full (a maxmemory with a maxmemory-policy other than noeviction): the keys it evicts are lost from the copy without notice. Refused (exit 2) without this flag')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;completions' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long a writing command waits while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most 100 years), then fails with exit code 3. 0 fails at once')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace data commands work in [default: the default namespace]. Commands that add keys (put, incr, decr, import) create it; the others fail with exit 1 when it does not exist (even with --quiet). `emdb ns list` shows them')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from FILE (its contents without a trailing newline). Else the EMDB_PASSPHRASE environment variable; else, on a terminal, emdb asks when the database is encrypted')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits. Else the file named by the EMDB_KEY_FILE environment variable')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Never write: reading commands only (writing ones fail with exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (one document, or one object per line for streams)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bars and no status reports; data and errors still print')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Shorthand for --key-format hex --value-format hex')
            [CompletionResult]::new('--base64', '--base64', [CompletionResultType]::ParameterName, 'Shorthand for --key-format base64 --value-format base64')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'emdb;help' {
            [CompletionResult]::new('put', 'put', [CompletionResultType]::ParameterValue, 'Store a value under a key (replacing any old value)')
            [CompletionResult]::new('incr', 'incr', [CompletionResultType]::ParameterValue, 'Add to an integer value atomically and print the result (a missing key counts as 0)')
            [CompletionResult]::new('decr', 'decr', [CompletionResultType]::ParameterValue, 'Subtract from an integer value atomically and print the result (a missing key counts as 0)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Print the value of a key and a newline (exit 1 when missing)')
            [CompletionResult]::new('del', 'del', [CompletionResultType]::ParameterValue, 'Delete keys, or every key with a prefix')
            [CompletionResult]::new('exists', 'exists', [CompletionResultType]::ParameterValue, 'Exit 0 when the key exists, 1 when it does not')
            [CompletionResult]::new('count', 'count', [CompletionResultType]::ParameterValue, 'Print the number of keys (in the namespace of -n)')
            [CompletionResult]::new('scan', 'scan', [CompletionResultType]::ParameterValue, 'List keys and values, sorted by key bytes')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Sizes and activity counters of the database')
            [CompletionResult]::new('compact', 'compact', [CompletionResultType]::ParameterValue, 'Rewrite the file with only live records, reclaiming dead bytes')
            [CompletionResult]::new('lock', 'lock', [CompletionResultType]::ParameterValue, 'Inspect or remove the writer lock')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Load records from a file (or stdin) in JSON Lines, CSV or Redis protocol, or copy the string keys of a Redis server (--from)')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write every record, with its namespace and expiry, to a file (or stdout); all namespaces, or only the one -n names')
            [CompletionResult]::new('ttl', 'ttl', [CompletionResultType]::ParameterValue, 'Print the time left before a key expires (exit 1 when missing)')
            [CompletionResult]::new('expire', 'expire', [CompletionResultType]::ParameterValue, 'Make a key expire DURATION from now (exit 1 when missing)')
            [CompletionResult]::new('persist', 'persist', [CompletionResultType]::ParameterValue, 'Remove the expiry of a key, so it lives until deleted (exit 1 when missing)')
            [CompletionResult]::new('ns', 'ns', [CompletionResultType]::ParameterValue, 'List or drop namespaces')
            [CompletionResult]::new('backup', 'backup', [CompletionResultType]::ParameterValue, 'Write a consistent copy of the database to DEST while writers go on')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Verify every record''s checksum (and seal); report damage with offsets')
            [CompletionResult]::new('encrypt', 'encrypt', [CompletionResultType]::ParameterValue, 'Encrypt a plain database with the secret from --passphrase-file, --key-file, EMDB_PASSPHRASE, EMDB_KEY_FILE or a prompt')
            [CompletionResult]::new('decrypt', 'decrypt', [CompletionResultType]::ParameterValue, 'Decrypt an encrypted database into a plain one (the old file is deleted once the new one is verified; --keep-backup keeps it)')
            [CompletionResult]::new('rotate-key', 'rotate-key', [CompletionResultType]::ParameterValue, 'Re-encrypt a database under a new key or passphrase')
            [CompletionResult]::new('bench', 'bench', [CompletionResultType]::ParameterValue, 'Measure the seed workloads: sequential set, get, mixed 50% get / 40% set / 10% delete, latency percentiles, reopen and replay time')
            [CompletionResult]::new('shell', 'shell', [CompletionResultType]::ParameterValue, 'Run commands read from stdin, one per line, against one open database')
            [CompletionResult]::new('sync', 'sync', [CompletionResultType]::ParameterValue, 'Copy the database into Redis or a Redis Cluster, then (with --follow) keep applying the writer''s changes; resumable')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'emdb;help;put' {
            break
        }
        'emdb;help;incr' {
            break
        }
        'emdb;help;decr' {
            break
        }
        'emdb;help;get' {
            break
        }
        'emdb;help;del' {
            break
        }
        'emdb;help;exists' {
            break
        }
        'emdb;help;count' {
            break
        }
        'emdb;help;scan' {
            break
        }
        'emdb;help;stats' {
            break
        }
        'emdb;help;compact' {
            break
        }
        'emdb;help;lock' {
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show who holds the writer lock')
            [CompletionResult]::new('break', 'break', [CompletionResultType]::ParameterValue, 'Remove a lock file left behind; refuses while the holder runs')
            break
        }
        'emdb;help;lock;status' {
            break
        }
        'emdb;help;lock;break' {
            break
        }
        'emdb;help;import' {
            break
        }
        'emdb;help;export' {
            break
        }
        'emdb;help;ttl' {
            break
        }
        'emdb;help;expire' {
            break
        }
        'emdb;help;persist' {
            break
        }
        'emdb;help;ns' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the named namespaces and their key counts (tab-separated)')
            [CompletionResult]::new('drop', 'drop', [CompletionResultType]::ParameterValue, 'Drop a namespace and every key in it (asks on a terminal)')
            break
        }
        'emdb;help;ns;list' {
            break
        }
        'emdb;help;ns;drop' {
            break
        }
        'emdb;help;backup' {
            break
        }
        'emdb;help;check' {
            break
        }
        'emdb;help;encrypt' {
            break
        }
        'emdb;help;decrypt' {
            break
        }
        'emdb;help;rotate-key' {
            break
        }
        'emdb;help;bench' {
            break
        }
        'emdb;help;shell' {
            break
        }
        'emdb;help;sync' {
            break
        }
        'emdb;help;completions' {
            break
        }
        'emdb;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
