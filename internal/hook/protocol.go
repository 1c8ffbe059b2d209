package hook

import "fmt"

// protocol is how a host's events read: the fields every event has, the
// events it sends and what each carries. One reading serves every host.
type protocol struct {
	host string
	// session and turn name the fields of the session and turn ids.
	session, turn string
	// required and optional are the fields of every event.
	required, optional []string
	// strings are the other fields that must be strings when present;
	// nullable those of them that may be null.
	strings, nullable []string
	// types are the JSON types of the members that may be other than
	// strings (see members.kinds).
	types  map[string]string
	events map[string]eventSpec
}

// eventSpec is one event a host sends.
type eventSpec struct {
	phase              Phase
	failed             bool
	required, optional []string
}

// read reads the members of one event strictly (Host.Parse checked the
// names): a known event with exactly its fields, the common ones read into
// an Event. tool_input is an object when present.
func (p protocol) read(data []byte) (members, *Event, error) {
	m, err := readMembers(p.host, data)
	if err != nil {
		return nil, nil, err
	}
	e := &Event{}
	if e.Name, err = m.str("hook_event_name", false); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p.host, err)
	}
	spec, ok := p.events[e.Name]
	if !ok {
		return nil, nil, fmt.Errorf("%s: unknown hook event %q", p.host, e.Name)
	}
	e.Phase, e.Failed = spec.phase, spec.failed
	required := append(append([]string{p.session, "hook_event_name"}, p.required...), spec.required...)
	if err := m.check(p.host, e.Name, required, append(append([]string{p.turn}, p.optional...), spec.optional...)); err != nil {
		return nil, nil, err
	}
	null := map[string]bool{}
	for _, k := range p.nullable {
		null[k] = true
	}
	fail := func(err error) (members, *Event, error) {
		return nil, nil, fmt.Errorf("%s: %s: %w", p.host, e.Name, err)
	}
	for k, dst := range map[string]*string{p.session: &e.SessionID, p.turn: &e.TurnID, "cwd": &e.Cwd,
		"tool_use_id": &e.ToolUseID, "tool_name": &e.Tool, "prompt": &e.Prompt} {
		if *dst, err = m.str(k, null[k]); err != nil {
			return fail(err)
		}
	}
	for _, k := range p.strings {
		if _, err := m.str(k, null[k]); err != nil {
			return fail(err)
		}
	}
	if e.SessionID == "" {
		return fail(fmt.Errorf("empty %s", p.session))
	}
	if _, tool := m["tool_name"]; tool && e.Tool == "" {
		return fail(fmt.Errorf("empty tool_name"))
	}
	return m, e, nil
}

// input reads tool_input as an object into e.
func (p protocol) input(m members, e *Event) error {
	var err error
	if e.Input, err = m.object("tool_input"); err != nil {
		return fmt.Errorf("%s: %s: %w", p.host, e.Name, err)
	}
	return nil
}

// readTool reads one event whose tool_input, when present, is an object:
// read, then tool_input, then the types of p.types.
func (p protocol) readTool(data []byte) (members, *Event, error) {
	m, e, err := p.read(data)
	if err != nil {
		return nil, nil, err
	}
	if err := p.input(m, e); err != nil {
		return nil, nil, err
	}
	if err := p.kinds(m, e); err != nil {
		return nil, nil, err
	}
	return m, e, nil
}

// kinds checks the types of the members of p.types (see members.kinds).
func (p protocol) kinds(m members, e *Event) error {
	for k, ks := range p.types {
		if err := m.kinds(k, ks); err != nil {
			return fmt.Errorf("%s: %s: %w", p.host, e.Name, err)
		}
	}
	return nil
}
