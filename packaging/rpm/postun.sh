# iotrace %postun (rpm): $1 is 0 on removal, 1 on upgrade.
# The trace repository /var/lib/iotrace is never touched here: traces are
# measurements of production nodes that cannot be taken again, not package
# state, and they are often read long after the tracer is gone. rpm removes
# /var/lib/iotrace only when it is empty. To delete traces, run
# `iotrace --trace-management --remove-traces --prefix '*'` first.
if [ -d /run/systemd/system ]; then
	systemctl daemon-reload >/dev/null 2>&1 || :
fi
if [ "$1" -eq 0 ]; then
	# left by an interrupted `iotrace -C --set-trace-repository-path`
	rm -f /etc/iotrace/iotrace.conf.tmp
fi
