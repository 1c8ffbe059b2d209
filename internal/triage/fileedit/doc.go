// Package fileedit is the first pass's judge of file edits (SPEC G14,
// G15): a text editor's write outside the writable roots or into a
// protected path, an MCP tool's edit, a patch a script applies from a
// here-document. It registers with package judge as the judge of
// action.FileEdit actions.
package fileedit
