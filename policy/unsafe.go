package policy

import "unsafe"

// unsafeString views b as a string without copying. The caller must not
// modify b while the string is in use.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
