# iotrace %post (rpm): $1 is 1 on install, 2 on upgrade.
# rpm sets /var/lib/iotrace to 0700 (%dir %attr) when it creates it; this
# also fixes a directory that existed before with a looser mode. Traces hold
# file paths and process ids.
if [ -d /var/lib/iotrace ]; then
	chmod 0700 /var/lib/iotrace
fi
if [ -d /run/systemd/system ]; then
	systemctl daemon-reload >/dev/null 2>&1 || :
fi
