/**
 * Operators, as PD schedules them: a planned change of one range (its expected generation, a list of
 * steps, a reason and a deadline), each step plain data that tells from a reported descriptor and
 * leader whether it has finished. {@code core.controller.OperatorPlanner} turns a tick's
 * decisions into operators and owns their order, exclusion and budgets; whoever executes them only
 * advances steps. Pure: no clock (time is passed in), no threads, no I/O. Depends on core's policy
 * and rangemap packages only; the controller package depends on it, never the reverse.
 */
package dev.rangekv.core.operator;
