package claude

// ClientManagedDir is where Claude Code itself reads managed settings on
// this system, whatever SKILLWIRE_MANAGED_DIR says. An administrator's
// configuration there is read even when the environment points skillwire's
// watch elsewhere. A user's environment must not switch it off.
func ClientManagedDir() string { return managedDir }
