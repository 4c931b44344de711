// Package libs tests jitterkit against real retry libraries. It is a module
// of its own so that the main module's go.mod stays lean.
package libs
