package rewrite

// ToolModules is toolModules.
var ToolModules = toolModules
