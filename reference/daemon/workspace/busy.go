package workspace

// Writing reports whether a workspace_write holds the Environment (Busy splits into Writing and
// Exporting: a runtime_prepare begin is refused for each, RP-21).
func (m *Machine) Writing() bool { return m.write != nil }

// Exporting reports whether a workspace_export holds the Environment.
func (m *Machine) Exporting() bool { return m.export != nil }
