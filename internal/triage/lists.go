package triage

// List returns the words of the named list as a set (protection.Lists).
func (k *Knowledge) List(name string) map[string]bool { return k.list(name) }

// Words returns the words of the named list in the order written
// (protection.Lists).
func (k *Knowledge) Words(name string) []string { return k.words(name) }

// Names returns the entry of the named list that the words ws match, ""
// for none (protection.Lists).
func (k *Knowledge) Names(name string, ws []string) string { return k.names(name, ws) }
