"""MAPF-FrozenLake as a tool-use task: ``look``, ``move`` and ``wait`` tools over a state of agent positions.

Each time step, every agent gets one action (``move(agent, direction)`` or ``wait(agent)``); once all agents
have one, the step runs for all of them at once and the clock advances (except in a step where every agent
already stands on its goal and waits: it changes nothing and takes no time, as trailing waits do not count in
the text form's makespan). An action that would leave the map,
enter a hole, or collide with an action already given for this step (same cell, or a swap) is refused with an
error observation and changes nothing, so every accepted step is legal and conflict-free.

The state (a covert :class:`~covert.env.State`): table ``agents`` (position and goal of each agent), table
``queued`` (the actions given for the current step), table ``lake`` (the map) and counter ``time``. The
expected final state has every agent on its goal, nothing queued and ``time`` equal to the optimal makespan,
so final-state matching (:func:`covert.rewards.state_score`) gives 1 exactly for an optimal plan.

:data:`TOOL_FORM` is the form (:mod:`covert.procgen.tool_forms` registers it): the builder ``procgen.mapf_frozenlake``
and the tool rows ``covert procgen --envs mapf_frozenlake --form tools`` writes (:mod:`covert.procgen.tool_rows`),
whose oracle calls are the exact solver's plan, one assistant turn (every agent's action) per time step.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

from covert.env import Environment, State, ToolError, tool
from covert.procgen.contract import Instance
from covert.procgen.contract import Score as EnvScore
from covert.procgen.mapf_grid import GOAL_MARKS, MOVES, START_MARKS, MapfMap
from covert.procgen.tool_form import ToolForm

Direction = Literal["UP", "DOWN", "LEFT", "RIGHT"]
MAX_CALLS = 4096  # calls replayed per completion (a plan on 10x10 with 5 agents needs a few hundred at most)


class AgentView(TypedDict):
    """One agent as ``look`` shows it.

    Attributes:
        agent: The agent's number.
        row: Current row.
        col: Current column.
        goal_row: Row of its goal.
        goal_col: Column of its goal.
        at_goal: Whether it stands on its goal.
        queued: The action given for the current step, or an empty string.
    """

    agent: int
    row: int
    col: int
    goal_row: int
    goal_col: int
    at_goal: bool
    queued: str


class LakeView(TypedDict):
    """The lake and the agents.

    Attributes:
        rows: The map, one string per row: F frozen, H hole (agents are listed separately).
        time: Time steps run so far.
        agents: Every agent's position, goal and queued action.
    """

    rows: list[str]
    time: int
    agents: list[AgentView]


class StepResult(TypedDict):
    """What giving an action did.

    Attributes:
        agent: The agent the action was given to.
        action: The action.
        step_ran: Whether this action completed the step, so that all agents moved.
        time: Time steps run so far.
        waiting_for: Agents that still need an action for the current step.
        all_at_goal: Whether every agent now stands on its goal.
    """

    agent: int
    action: str
    step_ran: bool
    time: int
    waiting_for: list[int]
    all_at_goal: bool


class MapfToolsEnv(Environment):
    """Agents on a frozen lake, moved one synchronous step at a time."""

    name = "mapf_frozenlake_tools"

    @tool
    def look(self) -> LakeView:
        """Show the lake, the time step and every agent's position, goal and queued action."""
        lake = self.state.get("lake", "map") or {}
        views: list[AgentView] = []
        for key in self.state.ids("agents"):
            a = self.state.get("agents", key) or {}
            queued = self.state.get("queued", key)
            views.append({"agent": a["agent"], "row": a["row"], "col": a["col"], "goal_row": a["goal_row"],
                          "goal_col": a["goal_col"], "at_goal": (a["row"], a["col"]) == (a["goal_row"], a["goal_col"]),
                          "queued": queued["action"] if queued else ""})
        return {"rows": list(lake.get("rows", [])), "time": self.state.counter("time"), "agents": views}

    @tool(writes=True, errors=("unknown_agent", "already_queued", "off_map", "hole", "conflict"))
    def move(self, agent: int, direction: Direction) -> StepResult:
        """Give an agent its move for the current time step; the step runs once every agent has an action.

        Args:
            agent: The agent's number, from 0.
            direction: UP, DOWN, LEFT or RIGHT (UP decreases the row).
        """
        return self._queue(agent, direction)

    @tool(writes=True, errors=("unknown_agent", "already_queued", "conflict"))
    def wait(self, agent: int) -> StepResult:
        """Let an agent stay where it is for the current time step.

        Args:
            agent: The agent's number, from 0.
        """
        return self._queue(agent, "WAIT")

    # -- internals -------------------------------------------------------------------------------
    def _queue(self, agent: int, action: str) -> StepResult:
        key = str(agent)
        me = self.state.get("agents", key)
        if me is None:
            raise ToolError("unknown_agent", f"There is no agent {agent}; agents are 0 to {self.state.count('agents') - 1}.")
        if self.state.has("queued", key):
            raise ToolError("already_queued", f"Agent {agent} already has an action for this time step.")
        lake = self.state.get("lake", "map") or {}
        dr, dc = MOVES[action]
        target = (me["row"] + dr, me["col"] + dc)
        if not (0 <= target[0] < lake["size"] and 0 <= target[1] < lake["size"]):
            raise ToolError("off_map", f"Moving agent {agent} {action} would leave the map.")
        if list(target) in lake["holes"]:
            raise ToolError("hole", f"Moving agent {agent} {action} would step onto the hole at {target}.")
        for other_key, queued in self.state.records("queued"):
            other = self.state.get("agents", other_key) or {}
            there = (queued["row"], queued["col"])
            if there == target:
                raise ToolError("conflict", f"Agent {other['agent']} moves to {target} in this step too.")
            if there == (me["row"], me["col"]) and target == (other["row"], other["col"]) and action != "WAIT":
                raise ToolError("conflict", f"Agents {agent} and {other['agent']} would swap cells.")
        # an agent without an action yet cannot be checked; the step runs only when all have one
        self.state.insert("queued", key, {"agent": agent, "action": action, "row": target[0], "col": target[1]})
        ran = self.state.count("queued") == self.state.count("agents")
        if ran:
            # a step in which every agent already stands on its goal and waits changes nothing and takes no time,
            # as trailing waits do not count in the text form's makespan
            idle = all(q["action"] == "WAIT" for _, q in self.state.records("queued")) and _all_at_goal(self.state)
            for k, queued in list(self.state.records("queued")):
                moved = self.state.edit("agents", k)
                moved["row"], moved["col"] = queued["row"], queued["col"]
            for k in list(self.state.ids("queued")):
                self.state.delete("queued", k)
            if not idle:
                self.state.next_id("time")
        waiting = [self.state.get("agents", k)["agent"] for k in self.state.ids("agents")  # type: ignore[index]
                   if not self.state.has("queued", k)]
        at_goal = _all_at_goal(self.state)
        return {"agent": agent, "action": action, "step_ran": ran, "time": self.state.counter("time"),
                "waiting_for": waiting if not ran else [], "all_at_goal": at_goal}


def _all_at_goal(state: State) -> bool:
    return all((a["row"], a["col"]) == (a["goal_row"], a["goal_col"]) for _, a in state.records("agents"))


def initial_state(data: dict[str, Any]) -> dict[str, Any]:
    """The tool form's initial state for an instance's data."""
    grid = MapfMap.from_data(data)
    rows = ["".join("H" if (r, c) in grid.hole_set else "F" for c in range(grid.size)) for r in range(grid.size)]
    agents = {str(i): {"agent": i, "row": s[0], "col": s[1], "goal_row": g[0], "goal_col": g[1]}
              for i, (s, g) in enumerate(zip(grid.starts, grid.goals))}
    return {"tables": {"agents": agents, "queued": {},
                       "lake": {"map": {"size": grid.size, "holes": [list(h) for h in grid.holes], "rows": rows}}},
            "counters": {"time": 0}}


def expected_state(data: dict[str, Any]) -> State:
    """The state an optimal plan leaves: every agent on its goal, nothing queued, ``time`` = the optimum."""
    start = initial_state(data)
    for record in start["tables"]["agents"].values():
        record["row"], record["col"] = record["goal_row"], record["goal_col"]
    start["counters"]["time"] = int(data["optimal_makespan"])
    return State.from_dict(start)


def oracle_calls(moves: list[list[str]]) -> list[dict[str, Any]]:
    """The tool calls that play ``moves`` (one list per agent) step by step."""
    steps = max((len(m) for m in moves), default=0)
    calls = []
    for t in range(steps):
        for agent, plan in enumerate(moves):
            action = plan[t] if t < len(plan) else "WAIT"
            calls.append({"name": "wait", "arguments": {"agent": agent}} if action == "WAIT"
                         else {"name": "move", "arguments": {"agent": agent, "direction": action}})
    return calls


def tool_prompt(data: dict[str, Any]) -> str:
    """The user message of the tool form: the testbed's map text, then how to use the tools."""
    grid = MapfMap.from_data(data)
    lines = [f"You are a multi-agent path planning expert. There is a {grid.size}x{grid.size} frozen lake map "
             f"with {grid.agents} agents:"]
    lines += [" ".join(row) for row in grid.rows()]
    legend = ", ".join(f"{START_MARKS[i]}/{GOAL_MARKS[i]} = agent {i}" for i in range(grid.agents))
    lines.append(f"Start and goal cells: {legend} (start/goal); F is frozen ice, H is a hole.")
    lines += [f"Agent {i} needs to go from {grid.starts[i]} to {grid.goals[i]}" for i in range(grid.agents)]
    lines += ["Coordinates are (row, column), counted from 0 at the top-left corner.",
              "Move the agents with the tools: in each time step give every agent one action, move(agent, direction) "
              "or wait(agent); the step runs when all agents have one. Bring every agent to its goal in as few time "
              "steps as possible, then stop."]
    return "\n".join(lines)


def oracle_groups(moves: list[list[str]]) -> list[list[dict[str, Any]]]:
    """:func:`oracle_calls` as one group per time step (every agent's action for that step, given in one
    assistant turn of parallel calls)."""
    calls = oracle_calls(moves)
    agents = max(len(moves), 1)
    return [calls[i:i + agents] for i in range(0, len(calls), agents)]


def reference_groups(instance: Instance) -> list[list[dict[str, Any]]]:
    """The oracle calls of ``instance``: the exact solver's optimal plan, one group per time step."""
    from covert.procgen.mapf_moves import parse_plan
    from covert.procgen.registry import get_env

    moves = parse_plan(get_env(ENV_NAME).reference(instance), len(instance.data["starts"])).moves
    if moves is None:
        raise ValueError("the reference plan of this MAPF instance does not parse")
    return oracle_groups([list(m) for m in moves])


def final_answer(data: dict[str, Any]) -> str:
    """The closing assistant message of the oracle conversation."""
    steps = int(data["optimal_makespan"])
    return f"All agents are on their goals after {steps} time step{'s' if steps != 1 else ''}."


SYSTEM_PROMPT = ("You plan the moves of agents on a frozen lake with tools. In each time step give every agent "
                 "exactly one action with move or wait (several calls in one turn are fine); the step runs once "
                 "all agents have one. Never step off the map, onto a hole, onto a cell another agent takes in "
                 "the same step, or swap cells with another agent. Bring every agent to its goal in as few time "
                 "steps as possible.")
ENV_NAME = "mapf_frozenlake"
"""The procedural environment this is the tool form of (found through :mod:`covert.procgen.registry`)."""
TOOLS_VERSION = "1"
"""Version of the tool form (tools, state layout, prompt); bump it when a row would change."""

TOOL_FORM = ToolForm(env=ENV_NAME, version=TOOLS_VERSION, environment=MapfToolsEnv,
                     system_prompt=SYSTEM_PROMPT, initial_state=initial_state, expected_state=expected_state,
                     prompt=tool_prompt, oracle=reference_groups, answer=final_answer)


def score_tool_calls(data: dict[str, Any], completion: Any) -> EnvScore:
    """Replay a completion's tool calls on the instance's initial state and match the final state against the
    optimal one (:func:`covert.rewards.state_score`); never raises."""
    from covert.rewards.parsing import parse_completion
    from covert.rewards.state_match import state_items, state_score

    initial = State.from_dict(initial_state(data))
    env = MapfToolsEnv(initial.fork())
    transcript = parse_completion(completion, max_calls=MAX_CALLS, max_messages=2 * MAX_CALLS + 64)
    calls = transcript.calls
    refused: dict[str, int] = {}
    for call in calls[:MAX_CALLS]:
        result = env.call(call.name, call.arguments)
        if isinstance(result, dict) and isinstance(result.get("error"), dict):
            code = str(result["error"].get("code", "error"))
            refused[code] = refused.get(code, 0) + 1
    expected = expected_state(data)
    value, why = state_score(initial, env.state, expected.hash(), state_items(initial, expected))
    final = env.state
    at_goal = _all_at_goal(final)
    valid = at_goal and final.count("queued") == 0
    time = final.counter("time")
    optimal = valid and time == int(data["optimal_makespan"])
    reasons = [f"refused_{code}" for code in sorted(refused)]
    if len(calls) > MAX_CALLS or any(r.startswith("parse:too_many") for r in transcript.reasons):
        reasons.append("too_many_calls")
    if not calls:
        reasons.append("no_tool_calls")
    if not valid:
        reasons.append("goals_not_reached")
    elif not optimal:
        reasons.append("not_optimal")
    if why and not reasons:
        reasons.append("state_mismatch")
    details = {"calls": len(calls), "refused": sum(refused.values()), "has_illegal_moves": bool(refused),
               "all_goals_reached": at_goal, "valid": valid, "optimal": optimal, "makespan": time if valid else None,
               "optimal_makespan": int(data["optimal_makespan"])}
    return EnvScore(value if optimal or value < 1.0 else 0.99, tuple(reasons), details)
