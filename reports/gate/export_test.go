package gate

// Undominated is undominated, for the external tests.
var Undominated = undominated

// Clear is clear, for the external tests.
var Clear = clear
