#!/usr/bin/env bash
# twohost.sh -- two "hosts" on this machine, and MPI across them: room 03's
# solutions run with one rank on each.
#
# Each host is a network namespace of its own (and a UTS namespace with its own
# host name), joined to the other by a veth pair; their addresses (10.77.0.1 and
# .2) exist only inside the namespaces.  mpiexec (MPICH's Hydra) runs inside the
# first; where a cluster would use ssh to start its proxy on the other host, a
# small launcher wrapper enters the other namespace instead.  UCX is forced onto
# TCP over the veth (UCX_TLS=tcp,self, UCX_NET_DEVICES): left to itself it would
# see one machine and quietly use shared memory.  The veth's byte counters, read
# before and after, prove the ranks' messages crossed between the hosts.
#
# Needs root (namespaces) and MPICH; otherwise it says SKIP.  Deletes the
# namespaces (and with them the veth pair) and kills anything left inside them,
# also when a step fails.
set -u
cd "$(dirname "$0")/../../.." || exit 2
T_NAME=test-cluster  # make test-cluster: the same name as slurm.sh's lines
. grading/tests/lib-test.sh
if [ "$(id -u)" != 0 ]; then
    t_skip "the two-host part: needs root (network namespaces)"
    t_summary; exit
fi
if ! command -v ip >/dev/null 2>&1; then
    t_say "installing iproute2"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q iproute2 >/dev/null ||
        { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q iproute2 >/dev/null; } ||
        t_abort "could not install iproute2"
fi
if ! mpiexec --version 2>/dev/null | grep -q HYDRA; then
    t_skip "the two-host part: it drives MPICH's mpiexec (Hydra); this mpiexec is another MPI"
    t_summary; exit
fi
if ! ip netns add "prtest-probe-$$" 2>/dev/null; then
    t_skip "the two-host part: this machine does not allow network namespaces (a container without CAP_SYS_ADMIN?)"
    t_summary; exit
fi
ip netns del "prtest-probe-$$"

ns_a=prhost-a-$$ ns_b=prhost-b-$$
addr_a=10.77.0.1 addr_b=10.77.0.2
dev=prnet0
TMPDIR=/tmp t_tmpdir pr-twohost; dir=$T_TMP
# cleanup: the namespaces deleted, anything left in them killed (on exit too, when a
# step failed; a second call finds nothing to do).
cleanup() {
    for ns in "$ns_a" "$ns_b"; do
        pids=$(ip netns pids "$ns" 2>/dev/null)
        # shellcheck disable=SC2086  # one PID a word
        [ -n "$pids" ] && kill -9 $pids 2>/dev/null
        ip netns del "$ns" 2>/dev/null # takes its end of the veth pair with it
    done
    return 0
}
t_cleanup cleanup

# The two hosts and the wire between them.
{ ip netns add "$ns_a" && ip netns add "$ns_b" &&
    ip link add "pra$$" type veth peer name "prb$$" &&
    ip link set "pra$$" netns "$ns_a" && ip link set "prb$$" netns "$ns_b" &&
    ip -n "$ns_a" link set "pra$$" name "$dev" && ip -n "$ns_b" link set "prb$$" name "$dev" &&
    ip -n "$ns_a" addr add "$addr_a/24" dev "$dev" && ip -n "$ns_b" addr add "$addr_b/24" dev "$dev" &&
    ip -n "$ns_a" link set lo up && ip -n "$ns_b" link set lo up &&
    ip -n "$ns_a" link set "$dev" up && ip -n "$ns_b" link set "$dev" up; } ||
    t_abort "could not set up the two namespaces and their veth pair"
t_say "two hosts: $addr_a (namespace $ns_a) and $addr_b (namespace $ns_b), joined by a veth pair ($dev)"

# "ssh HOST COMMAND" for Hydra: the command runs in HOST's namespace, under its own host name.
cat > "$dir/netns-ssh" <<EOF
#!/bin/sh
while [ \$# -gt 0 ]; do case "\$1" in -*) shift ;; *) break ;; esac; done # ssh options (-x)
host=\$1; shift
case "\$host" in
    $addr_a) ns=$ns_a name=host-a ;;
    $addr_b) ns=$ns_b name=host-b ;;
    *) echo "netns-ssh: unknown host \$host" >&2; exit 255 ;;
esac
exec ip netns exec "\$ns" unshare --uts sh -c "hostname \$name; \$*"
EOF
chmod +x "$dir/netns-ssh"

tx_bytes() { ip netns exec "$1" cat "/sys/class/net/$dev/statistics/tx_bytes"; }
before_a=$(tx_bytes "$ns_a") before_b=$(tx_bytes "$ns_b")

# Room 03's solutions, one rank on each host.  (With 3 or more ranks over the two
# hosts, this MPICH 4.0.2 with UCX over TCP hangs now and then in MPI_Finalize after
# the program is done: a rank stays in ucp_worker_progress while the others wait
# for it.  It is the upstream bug behind the README's note on 3+ hosts, fixed in
# later MPICH releases; the grader would report such a run as TIMEOUT.)
# Each program runs with the first values of its first `runs` line in tasks.ini (grade --describe).
ucx="-genv UCX_TLS tcp,self -genv UCX_NET_DEVICES $dev"
ran=0
start=$SECONDS
mkdir -p build/twohost
for sol in solutions/03_mpi/task*.c; do
    id=$(basename "$sol" .c)
    exe=build/twohost/$id
    mpicc -std=c11 -O2 -Igrading/include -o "$exe" "$sol" -lm || { t_fail "$sol does not build"; continue; }
    # the first configuration (grade --describe), less its ranks
    args=$(grading/bin/grade --describe --task "03_mpi/$id" | awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR == 2 {
        n = split($c["config"], w, " "); for (i = 1; i <= n; i++) if (w[i] !~ /^ranks=/) printf "%s%s", (out++ ? " " : ""), w[i] }')
    out=build/twohost/$id.out
    # The known exit hang (see above) also strikes, rarely, with one rank per host on a
    # busy machine: a run that printed a correct verdict and then hung is tried again.
    local_try=1
    while :; do
        ip netns exec "$ns_a" unshare --uts sh -c "hostname host-a; exec timeout -k 5 20 mpiexec -launcher ssh \
            -launcher-exec $dir/netns-ssh -iface $dev -hosts $addr_a,$addr_b -ppn 1 -n 2 $ucx $PWD/$exe $args" >"$out" 2>&1
        rc=$?
        { [ $rc -eq 124 ] && grep -q 'verdict: all results correct' "$out" && [ $local_try -lt 3 ]; } || break
        t_say "  03_mpi/$id: a correct verdict, then a hang at exit (the MPICH 4.0.2 + UCX bug): trying again"
        local_try=$((local_try + 1))
    done
    ran=$((ran + 1))
    if [ "$rc" -eq 0 ] && grep -q 'verdict: all results correct' "$out"; then
        t_pass "03_mpi/$id on host-a and host-b ($args): $(grep -m1 -E '^result ' "$out")"
    else
        t_fail "03_mpi/$id across the two hosts (exit $rc):"; tail -8 "$out"
    fi
done
sent_a=$(( $(tx_bytes "$ns_a") - before_a )) sent_b=$(( $(tx_bytes "$ns_b") - before_b ))
t_say "room 03's $ran solutions ran across two hosts in $((SECONDS - start)) s"
t_say "bytes sent over the veth: host-a -> host-b $sent_a, host-b -> host-a $sent_b"
# Room 03 scatters and reduces arrays of a million numbers: megabytes must have crossed.
if [ "$sent_a" -lt 1000000 ] || [ "$sent_b" -lt 100000 ]; then
    t_fail "too few bytes crossed between the hosts: the ranks did not talk over the network"
else
    t_pass
fi
# Nothing may be left inside the namespaces (the programs and Hydra's proxies have ended).
for ns in "$ns_a" "$ns_b"; do
    left=$(ip netns pids "$ns")
    if [ -n "$left" ]; then
        # shellcheck disable=SC2086  # one PID a word
        t_fail "processes left in $ns: $(ps -o pid=,args= -p $left | tr '\n' ';')"
    else
        t_pass
    fi
done

cleanup
left=$(ip netns list 2>/dev/null | grep -E "^prhost-[ab]-$$" || true)
if [ -n "$left" ] || ip link show 2>/dev/null | grep -qE "pr[ab]$$"; then
    t_fail "namespaces or veth left behind: $left"
else
    t_pass
fi
t_summary test-cluster "two hosts: room 03's solutions ran across them, the bytes crossed the veth, nothing left behind"
