# Shared by the server scripts of services.d (sourced, not run: services.sh runs only *.sh):
# install a tool once per machine, start a server unless ours already runs, wait until it
# answers. A server runs detached (setsid) with its PID in a file; "ours" means that PID is
# alive and its command line holds the server's name, so a stale PID file or a foreign process
# on the port is told apart from a running server.

# Run as root (sudo when not root): the tool and state folders are per machine.
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# daemon_running PIDFILE PATTERN: the PID in PIDFILE is alive and its command line holds PATTERN.
daemon_running() {
    local pid
    pid=$(as_root cat "$1" 2>/dev/null) || return 1
    [ -n "$pid" ] && as_root test -r "/proc/$pid/cmdline" &&
        as_root tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "$2"
}

# daemon_start NAME PIDFILE PATTERN LOG ANSWERS -- COMMAND...: start COMMAND detached unless
# daemon_running; refuse (exit 1) when the port already answers (the function ANSWERS) for a
# process that is not ours. The shell writes its own PID, then becomes the server (exec), so
# the PID file names the server itself. It runs in / so that it outlives the checkout that
# started it (a server whose working folder was deleted with an old clone answered 500).
daemon_start() {
    local name=$1 pidfile=$2 pattern=$3 log=$4 answers=$5
    shift 5
    [ "${1:-}" = "--" ] && shift
    daemon_running "$pidfile" "$pattern" && return 0
    if "$answers"; then
        echo "services: something answers for $name, but no server of ours runs ($pidfile)" >&2
        exit 1
    fi
    echo "services: starting $name (log $log)"
    as_root setsid bash -c 'cd / && echo $$ >"$0" && exec "$@"' "$pidfile" "$@" >"$log" 2>&1 </dev/null &
}

# wait_until SECONDS WHAT LOG COMMAND...: retry COMMAND once a second for up to SECONDS; exit 1
# naming WHAT and LOG when it never succeeds.
wait_until() {
    local seconds=$1 what=$2 log=$3
    shift 3
    for _ in $(seq 1 "$seconds"); do "$@" && return 0; sleep 1; done
    "$@" || { echo "services: $what did not answer; see $log" >&2; exit 1; }
}

# install_venv_once TOOLS WHAT PIP_ARGS...: a virtual environment of its own in TOOLS for a
# server whose pins must stay out of the project's venv, installed once (TOOLS/.installed).
install_venv_once() {
    local tools=$1 what=$2
    shift 2
    as_root test -e "$tools/.installed" && return 0
    echo "services: installing $what into its own venv $tools"
    as_root python3 -m venv "$tools"
    as_root "$tools/bin/pip" install -q "$@"
    as_root touch "$tools/.installed"
}
