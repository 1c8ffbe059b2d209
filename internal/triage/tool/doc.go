// Package tool is the first pass's judge of MCP and function tool calls
// (SPEC G14): by the verb of the tool's name and by its arguments (paths
// judged as reads or writes, URLs for the data they carry, SQL by its
// statements, commands as shell scripts, everything sent out for
// secrets), and of fetches the sandbox blocked. It registers with package
// judge as the judge of action.MCP and action.Network actions.
package tool
