"""Smart home builder: the uniform contract plus its cases."""

from __future__ import annotations

from datetime import date, timedelta

from covert.env import State
from tests.builders.contract import BuilderContract, Case


def _first(s: State, table: str, **equals) -> dict:
    found = s.find(table, **equals)
    if not found:
        raise AssertionError(f"state has no {table} record matching {equals}")
    return found[0]


def _device(kind: str):
    def pick(s: State) -> str:
        return _first(s, "devices", kind=kind)["device_id"]
    return pick


def _force(kind: str, online: bool = True, **state):
    """Setup: make the first device of ``kind`` online (or offline) with the given state fields."""
    def setup(env) -> None:
        device = env.state.edit("devices", _device(kind)(env.state))
        device["online"] = online
        device["state"].update(state)
    return setup


def _scene(s: State) -> dict:
    return s.get("scenes", s.ids("scenes")[0])


def _scene_online(env) -> None:
    """Setup: bring every device of the first scene online and close the doors of its locks."""
    for action in _scene(env.state)["actions"]:
        device = env.state.edit("devices", action["device_id"])
        device["online"] = True
        if device["kind"] == "lock":
            device["state"]["door_state"] = "closed"


def _scene_offline(env) -> None:
    _scene_online(env)
    env.state.edit("devices", _scene(env.state)["actions"][0]["device_id"])["online"] = False


def _scene_door_open(env) -> None:
    """Setup: add the home's front door to the first scene as 'locked', with the door standing open."""
    _scene_online(env)
    scene = env.state.edit("scenes", env.state.ids("scenes")[0])
    lock = _first(env.state, "devices", home_id=scene["home_id"], kind="lock")
    scene["actions"].append({"device_id": lock["device_id"], "settings": {"lock_state": "locked"}})
    device = env.state.edit("devices", lock["device_id"])
    device["online"] = True
    device["state"]["door_state"] = "open"


def _window(s: State, back: int, span: int) -> dict:
    today = date.fromisoformat(s.get("meta", "clock")["today"])
    end = today - timedelta(days=back)
    return {"start_date": (end - timedelta(days=span)).isoformat(), "end_date": end.isoformat()}


def _metered(s: State) -> str:
    return s.ids("energy")[0]


def _home(s: State) -> str:
    return s.ids("homes")[0]


def _new_routine(s: State, **extra) -> dict:
    scene = _scene(s)
    return {"home_id": scene["home_id"], "routine_name": "Sunday Lie-in", "scene_id": scene["scene_id"],
            "time": "09:30", "repeat": "weekends", **extra}


class TestSmartHome(BuilderContract):
    builder_name = "smart_home"
    fingerprint = "1.10.0:bf9b758d670f1518"
    cases = [
        Case("find_homes_by_email", lambda s: {"email": s.get("accounts", s.ids("accounts")[0])["email"].upper()}),
        Case("find_homes_by_email", lambda s: {"email": "nobody@example.com"}, "account_not_found"),
        Case("get_home", lambda s: {"home_id": _home(s)}),
        Case("get_home", lambda s: {"home_id": "home_00000000"}, "home_not_found"),
        Case("list_devices", lambda s: {"home_id": _home(s)}),
        Case("list_devices", lambda s: {"home_id": _home(s), "kind": "light"}),
        Case("list_devices", lambda s: {"home_id": _home(s), "room_id": _first(s, "rooms", home_id=_home(s))["room_id"]}),
        Case("list_devices", lambda s: {"home_id": "home_00000000"}, "home_not_found"),
        Case("list_devices", lambda s: {"home_id": _home(s), "room_id": "room_00000000"}, "room_not_found"),
        Case("list_devices", lambda s: {"home_id": _home(s),
                                        "room_id": next(r for r, rec in s.records("rooms") if rec["home_id"] != _home(s))},
             "room_not_found"),
        Case("get_device_status", lambda s: {"device_id": _device("lock")(s)}),
        Case("get_device_status", lambda s: {"device_id": _device("thermostat")(s)}),
        Case("get_device_status", lambda s: {"device_id": "dev_00000000"}, "device_not_found"),
        Case("get_energy_usage", lambda s: {"device_id": _metered(s), **_window(s, 1, 6)}),
        Case("get_energy_usage", lambda s: {"device_id": _metered(s), **_window(s, -3, 40)}),  # clipped to the data
        Case("get_energy_usage", lambda s: {"device_id": "dev_00000000", **_window(s, 1, 6)}, "device_not_found"),
        Case("get_energy_usage", lambda s: {"device_id": _metered(s), "start_date": "2026-03-10",
                                            "end_date": "2026-03-01"}, "invalid_date_range"),
        Case("get_energy_usage", lambda s: {"device_id": _metered(s), "start_date": "last week",
                                            "end_date": "2026-03-01"}, "invalid_date_range"),
        Case("get_energy_usage", lambda s: {"device_id": _metered(s), **_window(s, 60, 6)}, "no_energy_data"),
        Case("get_energy_usage", lambda s: {"device_id": _device("lock")(s), **_window(s, 1, 6)}, "no_energy_data"),
        Case("list_automations", lambda s: {"home_id": _home(s)}),
        Case("list_automations", lambda s: {"home_id": "home_00000000"}, "home_not_found"),
        # control_device
        Case("control_device", lambda s: {"device_id": _device("light")(s), "power": "off"}, setup=_force("light")),
        Case("control_device", lambda s: {"device_id": _device("light")(s), "power": "on", "brightness": 40},
             setup=_force("light", power_state="off")),
        Case("control_device", lambda s: {"device_id": _device("light")(s), "power": "on", "color": "blue"},
             setup=_force("light", supports_color=True)),
        Case("control_device", lambda s: {"device_id": _device("plug")(s), "power": "on"}, setup=_force("plug")),
        Case("control_device", lambda s: {"device_id": _device("thermostat")(s), "power": "on"}, "unsupported_setting"),
        Case("control_device", lambda s: {"device_id": "dev_00000000", "power": "on"}, "device_not_found"),
        Case("control_device", lambda s: {"device_id": _device("light")(s), "power": "on"}, "device_offline",
             setup=_force("light", online=False)),
        Case("control_device", lambda s: {"device_id": _device("light")(s), "power": "on", "color": "red"}, "color_not_supported",
             setup=_force("light", supports_color=False, current_color="warm white")),
        Case("control_device", lambda s: {"device_id": _device("light")(s), "power": "on", "brightness": 150}, "value_out_of_range",
             setup=_force("light")),
        Case("control_device", lambda s: {"device_id": _device("light")(s), "power": "off", "brightness": 30},
             "conflicting_settings", setup=_force("light")),
        Case("control_device", lambda s: {"device_id": _device("plug")(s), "power": "on", "brightness": 50},
             "unsupported_setting"),
        # set_thermostat
        Case("set_thermostat", lambda s: {"thermostat_id": _device("thermostat")(s), "temperature_c": 20.5},
             setup=_force("thermostat", hvac_mode="heat")),
        Case("set_thermostat", lambda s: {"thermostat_id": _device("thermostat")(s), "temperature_c": 20.5},
             "thermostat_off", setup=_force("thermostat", hvac_mode="off")),
        Case("set_thermostat", lambda s: {"thermostat_id": _device("thermostat")(s), "temperature_c": 19, "mode": "heat"},
             setup=_force("thermostat", hvac_mode="off")),
        Case("set_thermostat", lambda s: {"thermostat_id": "dev_00000000", "temperature_c": 20.0}, "device_not_found"),
        Case("set_thermostat", lambda s: {"thermostat_id": _device("lock")(s), "temperature_c": 20.0}, "not_a_thermostat"),
        Case("set_thermostat", lambda s: {"thermostat_id": _device("thermostat")(s), "temperature_c": 20.0},
             "device_offline", setup=_force("thermostat", online=False)),
        Case("set_thermostat", lambda s: {"thermostat_id": _device("thermostat")(s), "temperature_c": 35.0},
             "temperature_out_of_range", setup=_force("thermostat", hvac_mode="heat")),
        # set_lock
        Case("set_lock", lambda s: {"lock_id": _device("lock")(s), "action": "lock"},
             setup=_force("lock", door_state="closed")),
        Case("set_lock", lambda s: {"lock_id": _device("lock")(s), "action": "unlock"},
             setup=_force("lock", door_state="open")),
        Case("set_lock", lambda s: {"lock_id": "dev_00000000", "action": "lock"}, "device_not_found"),
        Case("set_lock", lambda s: {"lock_id": _device("thermostat")(s), "action": "lock"}, "not_a_lock"),
        Case("set_lock", lambda s: {"lock_id": _device("lock")(s), "action": "unlock"}, "device_offline",
             setup=_force("lock", online=False)),
        Case("set_lock", lambda s: {"lock_id": _device("lock")(s), "action": "lock"}, "door_open",
             setup=_force("lock", door_state="open")),
        # scenes and routines
        Case("activate_scene", lambda s: {"scene_id": s.ids("scenes")[0]}, setup=_scene_online),
        Case("activate_scene", lambda s: {"scene_id": "scene_00000000"}, "scene_not_found"),
        Case("activate_scene", lambda s: {"scene_id": s.ids("scenes")[0]}, "scene_device_offline", setup=_scene_offline),
        Case("activate_scene", lambda s: {"scene_id": s.ids("scenes")[0]}, "door_open", setup=_scene_door_open),
        Case("create_routine", lambda s: _new_routine(s)),
        Case("create_routine", lambda s: _new_routine(s, time="7:05", repeat="once")),
        Case("create_routine", lambda s: _new_routine(s, home_id="home_00000000"), "home_not_found"),
        Case("create_routine", lambda s: _new_routine(s, scene_id="scene_00000000"), "scene_not_found"),
        Case("create_routine", lambda s: _new_routine(s, home_id=next(h for h in s.ids("homes") if h != _scene(s)["home_id"])),
             "scene_not_found"),
        Case("create_routine", lambda s: _new_routine(s, routine_name=_first(s, "routines")["name"].upper(),
                                                      home_id=_first(s, "routines")["home_id"],
                                                      scene_id=_first(s, "routines")["scene_id"]),
             "duplicate_routine_name"),
        Case("create_routine", lambda s: _new_routine(s, time="25:00"), "invalid_time"),
        Case("create_routine", lambda s: _new_routine(s, time="half past seven"), "invalid_time"),
        Case("delete_routine", lambda s: {"routine_id": s.ids("routines")[0]}),
        Case("delete_routine", lambda s: {"routine_id": "rtn_0"}, "routine_not_found"),
    ]


def test_an_offline_device_says_since_when_as_the_app_shows_it() -> None:
    """``status_summary`` is words a person reads (answers quote it): the day, not a raw ISO timestamp."""
    import re

    from covert.env import get_builder

    builder = get_builder("smart_home")
    env = builder.env(builder.state(0, 0))
    device_id = env.state.ids("devices")[0]
    device = env.state.edit("devices", device_id)
    device["online"], device["last_seen"] = False, "2026-01-11T03:58:46Z"
    status = env.call("get_device_status", {"device_id": device_id})
    assert status["status_summary"] == "offline since January 11, 2026"
    listed = env.call("list_devices", {"home_id": device["home_id"]})
    summaries = [d["status_summary"] for d in listed["devices"]]
    assert "offline since January 11, 2026" in summaries
    assert not [s for s in summaries if re.search(r"\d{4}-\d{2}-\d{2}T", s)]
