# bash completion for ncclforensic(1)                       -*- shell-script -*-
#
# `make install` puts it in <prefix>/share/bash-completion/completions/, where
# bash-completion finds it; or source it from ~/.bashrc. Works without the
# bash-completion package too (plainer file completion).
# The option lists follow `ncclforensic CMD --help` (tests/t_completion.sh
# checks that they agree).

_ncclforensic_commands="ingest analyze report sql tui view grammar schema synth"

_ncclforensic_options()
{
	case $1 in
	ingest) echo "-o --output -q --quiet --force --grammar-dir --no-analyze -j --jobs --max-line --max-total-bytes
		--max-member-bytes --max-ratio --max-depth --help" ;;
	analyze) echo "-q --quiet --explain --rules-only --reattribute --help" ;;
	report) echo "-f --format -o --output --redact --width --help" ;;
	sql) echo "--tsv --csv --json --header --write --help" ;;
	tui) echo "--ascii --no-color --script --dump-screen --size --timing --help" ;;
	view) echo "-q --quiet --grammar-dir --ascii --no-color --script --dump-screen --size --timing --help" ;;
	grammar) echo "--grammar-dir --help" ;;
	schema) echo "--help" ;;
	synth) echo "--from --ranks -o --output --seed -q --quiet --help" ;;
	esac
}

# _ncclforensic_files EXTGLOB: files whose name ends in .EXTGLOB, and directories
_ncclforensic_files()
{
	if declare -F _filedir > /dev/null 2>&1; then
		_filedir "$1"
	else
		local IFS=$'\n' f
		local had_extglob=0
		shopt -q extglob && had_extglob=1
		shopt -s extglob
		for f in $(compgen -f -- "$cur"); do
			# shellcheck disable=SC2254 # $1 is a pattern
			if [[ -d $f ]]; then
				COMPREPLY+=("$f/")
			else
				case $f in *.$1) COMPREPLY+=("$f") ;; esac
			fi
		done
		[[ $had_extglob == 1 ]] || shopt -u extglob
		compopt -o nospace 2> /dev/null
	fi
}

_ncclforensic_dirs()
{
	if declare -F _filedir > /dev/null 2>&1; then
		_filedir -d
	else
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
	fi
}

_ncclforensic()
{
	local cur prev words cword
	if declare -F _init_completion > /dev/null 2>&1; then
		_init_completion || return
	else
		COMPREPLY=()
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD - 1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	fi

	# the command, and how many plain arguments follow it
	local cmd="" i nargs=0 w
	for ((i = 1; i < cword; i++)); do
		w=${words[i]}
		if [[ -z $cmd ]]; then
			[[ $w == -* ]] || cmd=$w
			continue
		fi
		case $w in
		-o | --output | -f | --format | --grammar-dir | --max-line | --max-total-bytes | \
			--max-member-bytes | --max-ratio | --max-depth | --width | --script | --dump-screen | \
			--size | --from | --ranks | --seed)
			((i++)) ;;
		-*) ;;
		*) ((nargs++)) ;;
		esac
	done

	local archives='@(tar|tar.gz|tgz|tar.zst|tzst|tar.xz|txz|tar.bz2|tbz2|zip|gz|zst|xz|log|txt|out|err)'
	if [[ -z $cmd ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$_ncclforensic_commands --help --version" -- "$cur")
		return
	fi

	case $prev in
	-o | --output)
		case $cmd in
		ingest) _ncclforensic_files db ;;
		report) _ncclforensic_files '@(md|txt|json|html)' ;;
		synth) _ncclforensic_files '@(tar.gz|tgz)' ;;
		esac
		return ;;
	-f | --format)
		mapfile -t COMPREPLY < <(compgen -W "md markdown text json html" -- "$cur")
		return ;;
	--grammar-dir)
		_ncclforensic_dirs
		return ;;
	--from)
		_ncclforensic_files "$archives"
		return ;;
	--dump-screen)
		_ncclforensic_files txt
		return ;;
	--max-line | --max-total-bytes | --max-member-bytes | --max-ratio | --max-depth | --width | \
		--script | --size | --ranks | --seed)
		return ;;
	esac

	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_ncclforensic_options "$cmd")" -- "$cur")
		return
	fi

	case $cmd in
	ingest | view)
		((nargs == 0)) && _ncclforensic_files "$archives" ;;
	analyze | report | tui)
		((nargs == 0)) && _ncclforensic_files db ;;
	sql)
		if ((nargs == 0)); then
			_ncclforensic_files db
		elif ((nargs == 1)); then
			# the start of a query: the case's tables
			local tables
			tables=$(ncclforensic schema 2> /dev/null | sed -n 's/^CREATE \(VIRTUAL \)\{0,1\}TABLE \([a-z_]*\).*/\2/p')
			mapfile -t COMPREPLY < <(compgen -W "SELECT $tables" -- "$cur")
		fi ;;
	grammar)
		((nargs == 0)) && mapfile -t COMPREPLY < <(compgen -W "test list" -- "$cur") ;;
	esac
} &&
	complete -F _ncclforensic ncclforensic

# ex: filetype=sh
