
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
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
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
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Print the value of a key and a newline (exit 1 when missing)')
            [CompletionResult]::new('del', 'del', [CompletionResultType]::ParameterValue, 'Delete keys, or every key with a prefix')
            [CompletionResult]::new('exists', 'exists', [CompletionResultType]::ParameterValue, 'Exit 0 when the key exists, 1 when it does not')
            [CompletionResult]::new('count', 'count', [CompletionResultType]::ParameterValue, 'Print the number of keys')
            [CompletionResult]::new('scan', 'scan', [CompletionResultType]::ParameterValue, 'List keys and values, sorted by key bytes')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Sizes and activity counters of the database')
            [CompletionResult]::new('compact', 'compact', [CompletionResultType]::ParameterValue, 'Rewrite the file with only live records, reclaiming dead bytes')
            [CompletionResult]::new('lock', 'lock', [CompletionResultType]::ParameterValue, 'Inspect or remove the writer lock')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Load records from a file (or stdin) in JSON Lines, CSV or Redis protocol')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write every record to a file (or stdout), sorted by key')
            [CompletionResult]::new('shell', 'shell', [CompletionResultType]::ParameterValue, 'Run commands read from stdin, one per line, against one open database')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'emdb;put' {
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'Read the value from this file')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
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
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
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
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
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
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
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
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
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
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'Only keys matching this glob, applied to the key bytes: `*` any run, `?` one byte, `[a-z]` / `[!a-z]` a class, `\` escapes')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Print at most this many records')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--keys-only', '--keys-only', [CompletionResultType]::ParameterName, 'Print keys without values')
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
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Refresh every SECS seconds (default 2) until interrupted; redraws in place on a terminal. Each refresh reopens the database read-only')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'With --watch: stop after this many refreshes')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
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
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
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
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
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
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
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
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'DANGEROUS: remove the lock file even while a live process holds the lock. That process keeps writing, and the next writer takes a new lock, so two writers can append to one file and corrupt it. Only for a holder you know is gone or frozen for good (e.g. another host)')
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
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Input format [default: from the file extension (.csv, .resp), else jsonl]')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
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
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database file [default: the platform data directory''s emdb/emdb-default.emdb]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
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
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
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
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long to keep retrying while another process holds the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds). Default: fail at once with exit code 3')
            [CompletionResult]::new('--key-format', '--key-format', [CompletionResultType]::ParameterName, 'Encoding of keys in arguments, stdin, output, import and export')
            [CompletionResult]::new('--value-format', '--value-format', [CompletionResultType]::ParameterName, 'Encoding of values in arguments, stdin, output, import and export')
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
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Print the value of a key and a newline (exit 1 when missing)')
            [CompletionResult]::new('del', 'del', [CompletionResultType]::ParameterValue, 'Delete keys, or every key with a prefix')
            [CompletionResult]::new('exists', 'exists', [CompletionResultType]::ParameterValue, 'Exit 0 when the key exists, 1 when it does not')
            [CompletionResult]::new('count', 'count', [CompletionResultType]::ParameterValue, 'Print the number of keys')
            [CompletionResult]::new('scan', 'scan', [CompletionResultType]::ParameterValue, 'List keys and values, sorted by key bytes')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Sizes and activity counters of the database')
            [CompletionResult]::new('compact', 'compact', [CompletionResultType]::ParameterValue, 'Rewrite the file with only live records, reclaiming dead bytes')
            [CompletionResult]::new('lock', 'lock', [CompletionResultType]::ParameterValue, 'Inspect or remove the writer lock')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Load records from a file (or stdin) in JSON Lines, CSV or Redis protocol')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write every record to a file (or stdout), sorted by key')
            [CompletionResult]::new('shell', 'shell', [CompletionResultType]::ParameterValue, 'Run commands read from stdin, one per line, against one open database')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'emdb;help;put' {
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
        'emdb;help;shell' {
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
