package gate

// Undominated is undominated, for the external tests.
var Undominated = undominated
