package files

import "os"

// openFlags opens a link's file for reading. Windows has no O_NOFOLLOW:
// a file put in the original's place is still refused, as Open compares
// it with the one the link was made for (os.SameFile).
const openFlags = os.O_RDONLY
