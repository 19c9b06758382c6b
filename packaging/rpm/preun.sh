# iotrace %preun (rpm): $1 is 0 on removal, 1 on upgrade.
# On removal, stop running capture units while the binary is still there so
# their traces end COMPLETE (SIGTERM). On upgrade they keep running:
# restarting would split a capture into two traces.
if [ "$1" -eq 0 ] && [ -d /run/systemd/system ]; then
	systemctl stop 'iotrace@*.service' >/dev/null 2>&1 || :
fi
