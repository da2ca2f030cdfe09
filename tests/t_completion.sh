#!/bin/sh
# Shell completion (contrib/ncclforensic.bash, contrib/_ncclforensic): every
# command of `ncclforensic --help` and every option of `ncclforensic CMD
# --help` is offered (so the lists cannot drift), the bash one is
# clean under shellcheck and completes commands, options, option values, case
# databases and archives, and the zsh one parses.
. tests/lib.sh
bashc=contrib/ncclforensic.bash
zshc=contrib/_ncclforensic

options() {
	grep -oE '(^|[^A-Za-z0-9/._-])--?[A-Za-z][A-Za-z0-9-]*' | grep -oE -- '--?[A-Za-z][A-Za-z0-9-]*$' | sort -u
}
cmds=$("$NF_BIN" --help | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1}')
check "completion/commands-found" test -n "$cmds"

if ! command -v bash > /dev/null 2>&1; then
	fail "completion/bash" "bash is not installed"
else
	# complete WORDS...: what the bash completion offers for the last word (in $TMP/comp)
	mkdir -p "$TMP/comp/sub"
	: > "$TMP/comp/a.db"
	: > "$TMP/comp/job.tar.gz"
	: > "$TMP/comp/notes.md"
	complete_words() {
		(cd "$TMP/comp" && bash --norc --noprofile -c '
			. "$0"
			COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
			_ncclforensic
			printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' "$NF_ROOT/$bashc" "$@")
	}
	check_eq "completion/bash-commands" \
		"$(printf '%s\n' $cmds --help --version | sort | tr '\n' ' ')" "$(complete_words ncclforensic '')"
	for c in $cmds; do
		want=$("$NF_BIN" "$c" --help | options | tr '\n' ' ')
		got=$(complete_words ncclforensic "$c" -)
		missing=""
		for o in $want; do
			case " $got " in *" $o "*) ;; *) missing="$missing $o" ;; esac
		done
		check_eq "completion/bash-$c-options" "" "$missing"
	done
	check_eq "completion/bash-format" "html json markdown md text " "$(complete_words ncclforensic report a.db --format '')"
	check_eq "completion/bash-case-db" "a.db sub/ " "$(complete_words ncclforensic report '')"
	check_eq "completion/bash-archive" "job.tar.gz sub/ " "$(complete_words ncclforensic ingest '')"
	check_eq "completion/bash-grammar" "list test " "$(complete_words ncclforensic grammar '')"
	check_eq "completion/bash-prefix" "ingest " "$(complete_words ncclforensic in)"
	if command -v shellcheck > /dev/null 2>&1; then
		check "completion/bash-shellcheck" shellcheck -s bash "$bashc"
	else
		fail "completion/bash-shellcheck" "shellcheck is not installed (contrib/install-deps.sh --test)"
	fi
fi

# zsh: each command's block names its options
for c in $cmds; do
	block=$(awk -v c="	$c)" '$0 == c {on = 1; next} on && /^\t;;$/ {on = 0} on' "$zshc")
	case $c in tui | view) block="$block $(awk '/tui_opts=\(/ {on = 1} on {print} on && /^\t\)$/ {on = 0}' "$zshc")" ;; esac
	missing=""
	for o in $("$NF_BIN" "$c" --help | options); do
		printf '%s\n' "$block" | grep -qE -- "(^|[^A-Za-z0-9-])$o([^A-Za-z0-9-]|\$)" || missing="$missing $o"
	done
	check_eq "completion/zsh-$c-options" "" "$missing"
	check "completion/zsh-$c-described" grep -q "^	'$c:" "$zshc"
done
if command -v zsh > /dev/null 2>&1; then
	check "completion/zsh-parses" zsh -n "$zshc"
	check "completion/zsh-loads" zsh -f -c "fpath=($NF_ROOT/contrib \$fpath); autoload -U compinit; compinit -u -D; autoload -U _ncclforensic; whence -w _ncclforensic"
fi

# zsh, for real where it is installed: a pseudo-terminal types
# "ncclforensic report x.db --format <Tab>" and reads what zsh offers
if command -v zsh > /dev/null 2>&1; then
	cat > "$TMP/zcomp.zsh" <<'ZEOF'
zmodload zsh/zpty
zpty -b z 'zsh -f -i'
zpty -w z "PS1='%% '; fpath=($1 \$fpath); autoload -U compinit; compinit -u -D; echo READY"
zpty -r z junk '*READY*'
zpty -w -n z "$2"$'\t'
out= i=0
while (( i++ < 50 )); do
	zpty -r -t z chunk && out+=$chunk
	[[ $out == *$3* ]] && break
	sleep 0.1
done
zpty -d z
[[ $out == *$3* ]]
ZEOF
	check "completion/zsh-formats" timeout 30 zsh -f "$TMP/zcomp.zsh" "$NF_ROOT/contrib" "ncclforensic report x.db --format " "markdown"
	check "completion/zsh-commands" timeout 30 zsh -f "$TMP/zcomp.zsh" "$NF_ROOT/contrib" "ncclforensic " "browse the case timeline"
fi
