package action

// What the tests of package action_test reach that is not exported.

// MaxString is how many bytes of one string an action's JSON keeps.
const MaxString = maxString

// Marshal returns the action's JSON with strings longer than limit cut.
func (a Action) Marshal(limit int) ([]byte, error) { return a.marshal(limit) }
