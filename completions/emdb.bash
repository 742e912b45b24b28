_emdb() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="emdb"
                ;;
            emdb,compact)
                cmd="emdb__subcmd__compact"
                ;;
            emdb,completions)
                cmd="emdb__subcmd__completions"
                ;;
            emdb,count)
                cmd="emdb__subcmd__count"
                ;;
            emdb,del)
                cmd="emdb__subcmd__del"
                ;;
            emdb,exists)
                cmd="emdb__subcmd__exists"
                ;;
            emdb,export)
                cmd="emdb__subcmd__export"
                ;;
            emdb,get)
                cmd="emdb__subcmd__get"
                ;;
            emdb,help)
                cmd="emdb__subcmd__help"
                ;;
            emdb,import)
                cmd="emdb__subcmd__import"
                ;;
            emdb,lock)
                cmd="emdb__subcmd__lock"
                ;;
            emdb,put)
                cmd="emdb__subcmd__put"
                ;;
            emdb,scan)
                cmd="emdb__subcmd__scan"
                ;;
            emdb,shell)
                cmd="emdb__subcmd__shell"
                ;;
            emdb,stats)
                cmd="emdb__subcmd__stats"
                ;;
            emdb__subcmd__help,compact)
                cmd="emdb__subcmd__help__subcmd__compact"
                ;;
            emdb__subcmd__help,completions)
                cmd="emdb__subcmd__help__subcmd__completions"
                ;;
            emdb__subcmd__help,count)
                cmd="emdb__subcmd__help__subcmd__count"
                ;;
            emdb__subcmd__help,del)
                cmd="emdb__subcmd__help__subcmd__del"
                ;;
            emdb__subcmd__help,exists)
                cmd="emdb__subcmd__help__subcmd__exists"
                ;;
            emdb__subcmd__help,export)
                cmd="emdb__subcmd__help__subcmd__export"
                ;;
            emdb__subcmd__help,get)
                cmd="emdb__subcmd__help__subcmd__get"
                ;;
            emdb__subcmd__help,help)
                cmd="emdb__subcmd__help__subcmd__help"
                ;;
            emdb__subcmd__help,import)
                cmd="emdb__subcmd__help__subcmd__import"
                ;;
            emdb__subcmd__help,lock)
                cmd="emdb__subcmd__help__subcmd__lock"
                ;;
            emdb__subcmd__help,put)
                cmd="emdb__subcmd__help__subcmd__put"
                ;;
            emdb__subcmd__help,scan)
                cmd="emdb__subcmd__help__subcmd__scan"
                ;;
            emdb__subcmd__help,shell)
                cmd="emdb__subcmd__help__subcmd__shell"
                ;;
            emdb__subcmd__help,stats)
                cmd="emdb__subcmd__help__subcmd__stats"
                ;;
            emdb__subcmd__help__subcmd__lock,break)
                cmd="emdb__subcmd__help__subcmd__lock__subcmd__break"
                ;;
            emdb__subcmd__help__subcmd__lock,status)
                cmd="emdb__subcmd__help__subcmd__lock__subcmd__status"
                ;;
            emdb__subcmd__lock,break)
                cmd="emdb__subcmd__lock__subcmd__break"
                ;;
            emdb__subcmd__lock,help)
                cmd="emdb__subcmd__lock__subcmd__help"
                ;;
            emdb__subcmd__lock,status)
                cmd="emdb__subcmd__lock__subcmd__status"
                ;;
            emdb__subcmd__lock__subcmd__help,break)
                cmd="emdb__subcmd__lock__subcmd__help__subcmd__break"
                ;;
            emdb__subcmd__lock__subcmd__help,help)
                cmd="emdb__subcmd__lock__subcmd__help__subcmd__help"
                ;;
            emdb__subcmd__lock__subcmd__help,status)
                cmd="emdb__subcmd__lock__subcmd__help__subcmd__status"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        emdb)
            opts="-q -h -V --db --read-only --lock-timeout --json --quiet --key-format --value-format --hex --base64 --help --version put get del exists count scan stats compact lock import export shell completions help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                --value-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__compact)
            opts="-q -h --dry-run --db --read-only --lock-timeout --json --quiet --key-format --value-format --hex --base64 --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                --value-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__completions)
            opts="-q -h --db --read-only --lock-timeout --json --quiet --key-format --value-format --hex --base64 --help bash elvish fish powershell zsh"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                --value-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__count)
            opts="-q -h --db --read-only --lock-timeout --json --quiet --key-format --value-format --hex --base64 --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                --value-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__del)
            opts="-y -q -h --prefix --yes --dry-run --db --read-only --lock-timeout --json --quiet --key-format --value-format --hex --base64 --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --prefix)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                --value-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__exists)
            opts="-q -h --db --read-only --lock-timeout --json --quiet --key-format --value-format --hex --base64 --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                --value-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__export)
            opts="-q -h --format --db --read-only --lock-timeout --json --quiet --key-format --value-format --hex --base64 --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --format)
                    COMPREPLY=($(compgen -W "jsonl csv resp" -- "${cur}"))
                    return 0
                    ;;
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                --value-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__get)
            opts="-q -h --raw --db --read-only --lock-timeout --json --quiet --key-format --value-format --hex --base64 --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                --value-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__help)
            opts="put get del exists count scan stats compact lock import export shell completions help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__help__subcmd__compact)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__help__subcmd__completions)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__help__subcmd__count)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__help__subcmd__del)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__help__subcmd__exists)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__help__subcmd__export)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__help__subcmd__get)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__help__subcmd__import)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__help__subcmd__lock)
            opts="status break"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__help__subcmd__lock__subcmd__break)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__help__subcmd__lock__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__help__subcmd__put)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__help__subcmd__scan)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__help__subcmd__shell)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__help__subcmd__stats)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__import)
            opts="-q -h --format --db --read-only --lock-timeout --json --quiet --key-format --value-format --hex --base64 --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --format)
                    COMPREPLY=($(compgen -W "jsonl csv resp" -- "${cur}"))
                    return 0
                    ;;
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                --value-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__lock)
            opts="-q -h --db --read-only --lock-timeout --json --quiet --key-format --value-format --hex --base64 --help status break help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                --value-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__lock__subcmd__break)
            opts="-q -h --force --db --read-only --lock-timeout --json --quiet --key-format --value-format --hex --base64 --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                --value-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__lock__subcmd__help)
            opts="status break help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__lock__subcmd__help__subcmd__break)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__lock__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__lock__subcmd__help__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__lock__subcmd__status)
            opts="-q -h --db --read-only --lock-timeout --json --quiet --key-format --value-format --hex --base64 --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                --value-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__put)
            opts="-q -h --file --db --read-only --lock-timeout --json --quiet --key-format --value-format --hex --base64 --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                --value-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__scan)
            opts="-q -h --prefix --from --to --glob --limit --keys-only --db --read-only --lock-timeout --json --quiet --key-format --value-format --hex --base64 --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --prefix)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --to)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --glob)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                --value-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__shell)
            opts="-q -h --db --read-only --lock-timeout --json --quiet --key-format --value-format --hex --base64 --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                --value-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        emdb__subcmd__stats)
            opts="-q -h --format --watch --count --db --read-only --lock-timeout --json --quiet --key-format --value-format --hex --base64 --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --format)
                    COMPREPLY=($(compgen -W "text json prometheus" -- "${cur}"))
                    return 0
                    ;;
                --watch)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --count)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                --value-format)
                    COMPREPLY=($(compgen -W "text hex base64" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _emdb -o nosort -o bashdefault -o default emdb
else
    complete -F _emdb -o bashdefault -o default emdb
fi
