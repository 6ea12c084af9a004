#!/bin/sh
# slurm.sh up DIR | down DIR - a single-node Slurm cluster on localhost for
# the scale-out tests, from Debian's slurm-wlm and munge: munged, slurmctld
# and slurmd run as root with every file and socket under DIR and on two
# ports free when it starts (not fixed ones, which two test runs side by
# side would share), so nothing of a system Slurm is touched. `up` prints
# the SLURM_CONF line to export. Needs root.
set -eu
cmd=$1 dir=$2
case $cmd in
up)
	mkdir -p "$dir/state" "$dir/spool"
	cp /etc/munge/munge.key "$dir/munge.key" 2>/dev/null ||
		dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 2>/dev/null
	chmod 600 "$dir/munge.key"
	/usr/sbin/munged --force --socket="$dir/munge.sock" --key-file="$dir/munge.key" \
		--pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munged.seed"
	node=$(hostname -s)
	ports=$(python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss:
    s.bind(("", 0))
print(*[s.getsockname()[1] for s in ss])')
	cat >"$dir/slurm.conf" <<-CONF
		ClusterName=gpufilt
		SlurmctldHost=$node(127.0.0.1)
		SlurmUser=root
		SlurmdUser=root
		AuthType=auth/munge
		CredType=cred/munge
		AuthInfo=socket=$dir/munge.sock
		SlurmctldPort=${ports% *}
		SlurmdPort=${ports#* }
		StateSaveLocation=$dir/state
		SlurmdSpoolDir=$dir/spool
		SlurmctldPidFile=$dir/slurmctld.pid
		SlurmdPidFile=$dir/slurmd.pid
		SlurmctldLogFile=$dir/slurmctld.log
		SlurmdLogFile=$dir/slurmd.log
		ProctrackType=proctrack/linuxproc
		TaskPlugin=task/none
		JobAcctGatherType=jobacct_gather/none
		AccountingStorageType=accounting_storage/none
		SelectType=select/cons_tres
		SelectTypeParameters=CR_CPU
		MpiDefault=none
		ReturnToService=2
		SchedulerType=sched/builtin
		MessageTimeout=30
		NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
		PartitionName=gpufilt Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
	CONF
	export SLURM_CONF="$dir/slurm.conf"
	/usr/sbin/slurmctld -c -i
	/usr/sbin/slurmd
	# ready once the node is idle
	i=0
	until sinfo -h -o %T 2>/dev/null | grep -q idle; do
		i=$((i + 1))
		[ $i -lt 60 ] || { echo "slurm.sh: the node did not come up" >&2; tail "$dir"/*.log >&2; exit 1; }
		sleep 0.5
	done
	echo "SLURM_CONF=$dir/slurm.conf"
	;;
down)
	pids=
	for p in slurmd slurmctld munged; do
		[ -f "$dir/$p.pid" ] && pids="$pids $(cat "$dir/$p.pid")"
	done
	[ -z "$pids" ] || kill $pids 2>/dev/null || true
	i=0 # gone, and their ports free, before the next cluster
	while [ -n "$pids" ] && kill -0 $pids 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	;;
esac
