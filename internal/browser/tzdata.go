package browser

// The time zone database, so that a session's timezone is checked the same
// way on every machine (see Emulation.Check).
import _ "time/tzdata"
