// Package effect is the record of what a command did when it ran once in a
// throw-away view (SPEC G17, effect-based review): the files it would
// write, create, delete, rename or change the metadata of, the credential
// stores it would open, the programs it
// would start and the network destinations it would try, with its exit
// status and output.
//
// One Report is filled by the dry run (`warden exec --dry-run`), printed by
// `warden exec --dry-run --json`, judged by the first pass (which may deny
// on clear harm but never allows on a dry run alone), shown to the
// automatic reviewer and the person, and recorded in the auto_review event.
package effect

// Report is what one dry run observed. Paths are absolute, as the kernel
// resolved them. The JSON field names are a contract (`warden exec
// --dry-run --json`, the auto_review event): extend, never rename.
type Report struct {
	Writes  []string `json:"writes"`  // existing files whose content changed
	Creates []string `json:"creates"` // files, directories and links that did not exist
	Deletes []string `json:"deletes"` // files and directories removed
	Renames []Rename `json:"renames"` // files moved from one path to another
	Chmods  []Chmod  `json:"chmods"`  // metadata changes: mode, owner, attributes
	Reads   []string `json:"reads"`   // watched credential stores it opened (not every read)
	Execs   []Exec   `json:"execs"`   // programs started, in order
	Network []Dest   `json:"network"` // destinations attempted and names looked up, in order

	Exit      int    `json:"exit"`                 // exit status (128+N for signal N)
	TimedOut  bool   `json:"timed_out"`            // still running at the budget's end, then stopped
	Output    string `json:"output"`               // stdout and stderr interleaved, cut
	OutputCut bool   `json:"output_cut,omitempty"` // Output was cut
}

// Rename is a file moved from one path to another.
type Rename struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Chmod is a change of a file's metadata: its mode, owner, group or
// extended attributes.
type Chmod struct {
	Path string `json:"path"`
	Mode string `json:"mode,omitempty"` // new permission bits in octal, "0755"
	Was  string `json:"was,omitempty"`  // old permission bits in octal
	UID  *int   `json:"uid,omitempty"`  // new owner, when it changed
	GID  *int   `json:"gid,omitempty"`  // new group, when it changed
	// Xattrs names the extended attributes set or changed (the user's
	// own, a file capability, access control lists), sorted.
	Xattrs []string `json:"xattrs,omitempty"`
}

// Exec is one program started: the path the kernel ran and its argv.
type Exec struct {
	Path string   `json:"path"`
	Argv []string `json:"argv"`
}

// Dest is one network destination attempted, or one name looked up.
type Dest struct {
	Op      string `json:"op"`                // "connect", "sendto" or "lookup"
	Family  string `json:"family,omitempty"`  // "ip4", "ip6" or "unix"
	Address string `json:"address,omitempty"` // IP address or socket path
	Port    int    `json:"port,omitempty"`
	Name    string `json:"name,omitempty"` // the name looked up (op "lookup")
}
