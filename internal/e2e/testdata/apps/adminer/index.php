<?php
// Adminer (Debian's package) over SQLite files, for the real-application
// corpus (internal/e2e/apps_test.go). SQLite has no passwords and Adminer
// refuses a login without one; its own login-password-less plugin, the
// configuration its manual gives for SQLite, checks the corpus's password.
function adminer_object() {
	include_once '/usr/share/adminer/plugins/plugin.php';
	include_once '/usr/share/adminer/plugins/login-password-less.php';
	return new AdminerPlugin(array(new AdminerLoginPasswordLess(password_hash('Admin-pass-2026', PASSWORD_DEFAULT))));
}
include '/usr/share/adminer/adminer.php';
