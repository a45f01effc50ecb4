<?php
// Adminer (Debian's package) over SQLite files, for the real-application
// corpus (internal/e2e/apps_test.go). Adminer refuses a login without a
// password to SQLite, which has none; this wrapper, the configuration its
// manual gives for that case, accepts the corpus's one login instead.
function adminer_object() {
	class CorpusAdminer extends Adminer {
		function login($login, $password) {
			return $login === 'admin' && $password === 'Admin-pass-2026';
		}
	}
	return new CorpusAdminer;
}
include '/usr/share/adminer/adminer.php';
