package daemon

// maxSocketPath is the longest AF_UNIX socket path Windows allows
// (sun_path holds 108 bytes, the terminating NUL included).
const maxSocketPath = 107

// ownerOnly has nothing to add on Windows: the socket file lives in the
// data folder under %LocalAppData%, whose access list admits only its
// user (and the system's administrators), and a process must open the
// file to connect. A --data outside the user's profile gets that folder's
// access list: keep it private.
func ownerOnly(string) error { return nil }
