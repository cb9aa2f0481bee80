"""How smart home users talk: intents per tool, references to entities, value samplers."""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from builders.smart_home.env import SWITCHABLE
from covert.env import Intent, Language, Reference, State
from covert.env.policy import Identity, listed_in

# name, hours it plausibly runs at, plausible repeats
NEW_ROUTINES = (
    ("Sunday Lie-in", (9, 10), ("weekends", "once")),
    ("School Run", (7, 8, 15), ("weekdays",)),
    ("Bedtime Story", (19, 20), ("every day", "weekdays")),
    ("Back from Work", (17, 18), ("weekdays",)),
    ("Evening Wind-down", (21, 22), ("every day",)),
    ("Early Shift", (5, 6), ("weekdays", "once")),
    ("Weekend Brunch", (10, 11), ("weekends",)),
    ("Late Movie", (21, 22), ("weekends", "once")),
    ("Quiet Hours", (22, 23), ("every day",)),
    ("Morning Coffee", (6, 7), ("every day", "weekdays")),
    ("Holiday Mode", (8, 9, 10), ("once",)),
    ("Night Owl", (23,), ("weekends",)),
)


def _pick(rng: random.Random, state: State, table: str, keep: Any) -> str:
    """A random id of ``table`` whose record passes ``keep``, or any id when none does."""
    ids = [key for key, record in state.records(table) if keep(record)] or state.ids(table)
    return rng.choice(ids)


def _online_kind(*kinds: str):
    """A device of one of ``kinds`` that is online (what controlling it needs)."""
    def test(state: State, device: dict[str, Any]) -> bool:
        return device["kind"] in kinds and bool(device["online"])
    return test


def _runnable(state: State, scene: dict[str, Any]) -> bool:
    """A scene whose devices are all online, none of its locks standing open."""
    for action in scene["actions"]:
        device = state.get("devices", action["device_id"])
        if device is None:
            continue
        if not device["online"] or (action["settings"].get("lock_state") == "locked"
                                    and device["state"].get("door_state") == "open"):
            return False
    return True


def _email(rng: random.Random, state: State) -> str:
    return state.get("accounts", _pick(rng, state, "accounts", lambda a: bool(a["home_ids"])))["email"]


def _period(rng: random.Random, state: State) -> dict[str, str]:
    """A period of two days or more inside the stored energy readings (which end yesterday): a request
    "from 2026-10-21 to 2026-10-21" is no period anyone asks about."""
    today = date.fromisoformat(state.get("meta", "clock")["today"])
    end = today - timedelta(days=rng.randint(1, 5))
    start = end - timedelta(days=rng.choice((1, 2, 3, 6, 6)))
    return {"start_date": start.isoformat(), "end_date": end.isoformat()}


def _new_routine(rng: random.Random, state: State) -> dict[str, str]:
    """A new routine's name with a time and repeat that fit it."""
    name, hours, repeats = rng.choice(NEW_ROUTINES)
    return {"routine_name": name, "time": f"{rng.choice(hours):02d}:{rng.choice((0, 0, 15, 30, 30, 45)):02d}",
            "repeat": rng.choice(repeats)}


IDENTITY = Identity(
    table="accounts", tools=("find_homes_by_email",), output_field="email", match_field="email",
    owners={"homes": listed_in("accounts", "home_ids", "home_id"), "devices": ("home_id", "homes"),
            "rooms": ("home_id", "homes"), "scenes": ("home_id", "homes"), "routines": ("home_id", "homes"),
            "energy": ("device_id", "devices")},
    self_params=("email",),
    requirement="Find the person's account by email before touching their homes.",
    signed_in="{name} is signed in to the hub app ({email}), so their account is already found; act only on "
              "their own homes.",
)


LANGUAGE = Language(
    scope="your smart home: homes and rooms, device status and control, scenes, routines and energy use",
    intents={
        "find_homes_by_email": (
            Intent(ask=("which homes are on my account? I'm {email}",
                        "can you pull up my smart home account? It's under {email}",
                        "I sign in with {email} — what homes can I control?",
                        "which places is {email} linked to in the app?",
                        "I just set up the hub with {email}; which homes show up?",
                        "can you check which homes I manage? I log in as {email}",
                        "list the homes on the {email} account", "which of my places are under {email}?", "show me my homes, the login is {email}", "which homes can {email} control?", "what homes come up for {email}?"),
                   answer=("Your account, {owner_name}, can control {homes:list:name|city}.",
                           "I found {homes:n:home} on your account: {homes:list:name|city}.",
                           "{owner_name}, these homes are linked to you: {homes:list:name|role}."),
                   context=("I sign in with {email}", "the account is under {email}", "my login is {email}", "I'm {email} on the app",
                            "{email} is my login", "I log in as {email}", "I use {email} for the hub",
                            "my hub account is {email}", "the app has me as {email}", "I'm signed up with {email}",
                            "my account's under {email}", "you'll find me as {email}", "the login's {email}", "everything's under {email}", "I'm {email} in the app", "the owner account is {email}", "the hub knows me as {email}", "I set the app up with {email}", "the hub is registered to {email}", "I'm the admin on the app, {email}", "our homes are set up under {email}", "I control everything from {email}", "I registered my devices with {email}", "I'm the homeowner, {email}", "my family shares the {email} account", "I'm {email}, the main user", "account: {email}", "hub login: {email}")),
        ),
        "get_home": (
            Intent(ask=("how many rooms and devices do I have set up at {home_id}?", "give me an overview of {home_id}",
                        "what's the room and device count at {home_id}?",
                        "I lost track of what's installed at {home_id}; how many rooms and gadgets are there?"),
                   answer=("{name} has {room_count:n:room} and {device_count:n:device}.",
                           "At {name} you have {device_count:n:device} across {rooms:list:name|device_count#~device}.",
                           "{name}: {room_count:n:room} ({rooms:list:name}) with {device_count:n:device} in all.")),
            Intent(ask=("is anything offline at {home_id}?", "are all my devices at {home_id} connected?",
                        "how many devices have dropped off the network at {home_id}?",
                        "the Wi-Fi went down at {home_id} earlier; how many devices are still offline?",
                        "how many things at {home_id} aren't responding?"),
                   answer=("{?offline_device_count=0}Everything at {name} is online: all {device_count:n:device}.",
                           "{?offline_device_count~0}{offline_device_count} of the {device_count:n:device} at {name} are offline.",
                           "{name} reports {offline_device_count:n:offline device}.")),
            Intent(ask=("what electricity rate are you using for {home_id}?", "what's the kWh price at {home_id}?",
                        "what price per kWh do you have on file for {home_id}?",
                        "my bill looks off; what tariff is set for {home_id}?"),
                   answer=("The tariff for {name} is {energy_tariff.price_per_kwh} {energy_tariff.currency} per kWh.",
                           "{name} is billed at {energy_tariff.price_per_kwh} {energy_tariff.currency} per kWh.",
                           "I'm using {energy_tariff.price_per_kwh} {energy_tariff.currency} per kWh for {name}.")),
        ),
        "list_devices": (
            Intent(ask=("what devices do I have at {home_id}?", "which of my devices at {home_id} are online right now?",
                        "what's in {room_id} at {home_id}?", "which gadgets are set up in {room_id} at {home_id}?",
                        "show me all the {kind} devices at {home_id}", "which {kind} devices do I have at {home_id}?",
                        "are there any {kind} devices in {room_id} at {home_id}?",
                        "list everything connected at {home_id}", "show me what's hooked up in {room_id} at {home_id}",
                        "I forget which {kind} devices are at {home_id} — which are there?",
                        "which smart devices are in {room_id} at {home_id}?"),
                   answer=("At {home_name} you have {devices:list:name|room_name}.",
                           "{home_name} has {device_count:n:device} ({online_count} online): {devices:list:name|status_summary}.",
                           "Your devices at {home_name}: {devices:list:name|kind}.",
                           "{?devices=}I see {device_count:n:device} matching that at {home_name}."),
                   context=("the device type is {kind}", "it's one of my {kind} devices at {home_id}",
                            "it's a {kind} device in {room_id}")),
        ),
        "get_device_status": (
            Intent(ask=("is {device_id} online?", "what's {device_id} doing right now?", "can you check on {device_id} for me?",
                        "check whether {device_id} is still connected", "what state is {device_id} in?",
                        "is {device_id} still responding?"),
                   answer=("{?online=yes}Yes, the {name} is online; it reads {status_summary}.",
                           "{?online=no}No, the {name} is offline; it was last seen {last_seen:when}.",
                           "The {name} in the {room_name} is {connectivity}: {status_summary}.")),
            Intent(ask=("what firmware is {device_id} running?", "which firmware version is on {device_id}?", "which make and model is {device_id}?",
                        "who makes {device_id}, and what version is it on?"),
                   answer=("The {name} is a {manufacturer} {model} running firmware {firmware}.",
                           "Your {name} runs firmware {firmware}.",
                           "Firmware {firmware} is on the {name} ({manufacturer} {model}).")),
        ),
        "get_energy_usage": (
            Intent(ask=("how much electricity did {device_id} use between {start_date} and {end_date}?",
                        "what did {device_id} cost me to run from {start_date} to {end_date}?",
                        "can you show me the energy use of {device_id} from {start_date} through {end_date}?",
                        "I think {device_id} is eating power; how many kWh were used from {start_date} to {end_date}?",
                        "total energy use for {device_id}, {start_date} to {end_date}?"),
                   answer=("The {device_name} used {total_kwh} kWh from {period_start:date} to {period_end:date}, about {estimated_cost.amount:money}.",
                           "From {period_start:date} to {period_end:date} the {device_name} drew {total_kwh} kWh ({estimated_cost.amount:money}); its busiest day was {peak_date:date}.",
                           "{total_kwh} kWh for the {device_name} over {days} days, roughly {estimated_cost.amount:money}."),
                   context=("I'm asking about {start_date} to {end_date}", "for the period {start_date} to {end_date}",
                            "I'm looking at {start_date} through {end_date}", "the dates I care about are {start_date} to {end_date}")),
        ),
        "list_automations": (
            Intent(ask=("what scenes and routines do I have at {home_id}?", "which routines are scheduled at {home_id}?",
                        "remind me what automations are set up for {home_id}",
                        "list the scenes and routines at {home_id}",
                        "I keep hearing things switch on at {home_id}; which routines are set up there?"),
                   answer=("At {home_name} you have {scenes:list:name} as scenes and {routines:list:name|time_of_day@time} as routines.",
                           "Your scenes at {home_name}: {scenes:list:name}.",
                           "{home_name} has {scene_count:n:scene} ({scenes:list:name}) and {routine_count:n:routine}.",
                           "{?scenes=}{home_name} has {scene_count:n:scene} and {routine_count:n:routine} set up.")),
        ),
        "control_device": (
            Intent(ask=("turn {power} {device_id}", "can you switch {device_id} {power}?", "please turn {device_id} {power} for me",
                        "turn {power} {device_id} at {brightness}% brightness",
                        "can you turn {power} {device_id} and set it to {brightness}%?",
                        "turn {power} {device_id} and make it {color}", "switch {device_id} {power} in {color}, please",
                        "turn {power} {device_id}, {color} at {brightness}% brightness",
                        "turn {power} {device_id} at {brightness}% in {color}"),
                   answer=("The {name} is now {status_summary}.",
                           "Done: the {name} in the {room_name} is {status_summary}.",
                           "I switched the {name}; it's {status_summary}.")),
        ),
        "set_thermostat": (
            Intent(ask=("set {thermostat_id} to {temperature_c} degrees",
                        "can you change {thermostat_id} to {temperature_c}°C?",
                        "I'd like {thermostat_id} at {temperature_c} degrees, please",
                        "{thermostat_id} to {temperature_c}°C",
                        "make {thermostat_id} {temperature_c} degrees before I get home",
                        "put {thermostat_id} in {mode} mode at {temperature_c} degrees",
                        "switch {thermostat_id} to {mode} and set it to {temperature_c}°C"),
                   answer=("The {name} is now set to {state.target_temp_c} °C in {state.hvac_mode} mode.",
                           "The {name} is now {status_summary}.",
                           "Your {name} is heading for {state.target_temp_c} °C (it's {state.current_temp_c} °C now).")),
        ),
        "set_lock": (
            Intent(ask=("{action} {lock_id}", "please {action} {lock_id}", "can you {action} {lock_id} remotely?",
                        "I'm not home, {action} {lock_id} for me", "{action} {lock_id} from here, would you?",
                        "{action} {lock_id}, I forgot to before I left"),
                   answer=("The {name} is now {state.lock_state}.",
                           "Done: the {name} in the {room_name} is {state.lock_state}.",
                           "I {state.lock_state} the {name}; it reads {status_summary}.")),
        ),
        "activate_scene": (
            Intent(ask=("run {scene_id}", "turn on {scene_id}", "can you start {scene_id} now?",
                        "kick off {scene_id}",
                        "fire up {scene_id} for me", "start {scene_id} and let me know what it changed", "put {scene_id} on"),
                   answer=("{name} is running now and adjusted {devices_updated:n:device}.",
                           "Your {name} scene ran and changed {changes:list:name|status_summary}.",
                           "I ran {name}, which adjusted {changes:list:name}.")),
        ),
        "create_routine": (
            Intent(ask=("at {home_id}, set up a routine called {routine_name} that runs {scene_id} at {time}, {repeat}",
                        "please add a new routine for {home_id} named {routine_name}: {scene_id} at {time}, {repeat}",
                        "I'd like {scene_id} to run automatically at {home_id} at {time}, {repeat} — call it {routine_name}", "make a {routine_name} routine at {home_id}: {scene_id} at {time}, {repeat}", "I keep forgetting to start {scene_id} at {home_id}; schedule it for {time}, {repeat}, and name it {routine_name}"),
                   answer=("Your {name} routine will run {scene.name} at {time_of_day:time}, {recurrence}; the first run is {next_run:when}.",
                           "Routine {name} is set: {scene.name} at {time_of_day:time} {recurrence}.",
                           "I created {name}. It starts {scene.name} {recurrence} at {time_of_day:time}, next on {next_run:when}.")),
        ),
        "delete_routine": (
            Intent(ask=("delete {routine_id}", "please remove {routine_id}, I don't need it anymore",
                        "get rid of {routine_id}", "remove {routine_id} from the schedule",
                        "I want {routine_id} gone", "take {routine_id} off the schedule for good"),
                   answer=("The {name} routine has been deleted.",
                           "I deleted your {name} routine.",
                           "{name} won't run anymore; it's deleted.")),
        ),
    },
    references={
        "home_id": Reference(
            noun="home", plural="homes", by_id=("home {value}",), user_knows_id=False,
            by_field={"name": ("my {value}", "the {value}"), "city": ("my place in {value}", "the home in {value}", "my home in {value}")},
            superlative={"device_count": ("the home with the most devices", "the home with the fewest devices")},
        ),
        "room_id": Reference(
            noun="room", plural="rooms", by_id=("room {value}",), user_knows_id=False,
            by_field={"name": ("the {value}", "my {value}")},
            superlative={"device_count": ("the room with the most devices", "the room with the fewest devices")},
        ),
        "device_id": Reference(
            noun="device", plural="devices", by_id=("device {value}",), user_knows_id=False,
            by_field={"name": ("the {value}", "my {value}"), "kind": ("the {value}",)},
        ),
        "thermostat_id": Reference(
            noun="thermostat", plural="thermostats", by_id=("thermostat {value}",), user_knows_id=False,
            by_field={"name": ("the {value}", "my {value}"), "room_name": ("the thermostat in the {value}",)},
            superlative={"current_temp_c": ("the thermostat in the warmest room", "the thermostat in the coldest room")},
        ),
        "lock_id": Reference(
            noun="lock", plural="locks", by_id=("lock {value}",), user_knows_id=False,
            by_field={"name": ("the {value}", "the {value} lock"), "room_name": ("the lock in the {value}",)},
        ),
        "scene_id": Reference(
            noun="scene", plural="scenes", by_id=("scene {value}",), user_knows_id=False,
            by_field={"name": ("my {value} scene", "the {value} scene")},
            superlative={"device_count": ("the scene that controls the most devices",
                                          "the scene that controls the fewest devices")},
        ),
        "routine_id": Reference(
            noun="routine", plural="routines", by_id=("routine {value}",), user_knows_id=False,
            by_field={"name": ("my {value} routine", "the {value} routine"),
                      "time_of_day": ("the routine that runs at {value}",)},
        ),
    },
    entity_tables={"home_id": "homes", "room_id": "rooms", "device_id": "devices", "thermostat_id": "devices",
                   "lock_id": "devices", "scene_id": "scenes", "routine_id": "routines"},
    eligible={"activate_scene.scene_id": _runnable, "set_thermostat.thermostat_id": _online_kind("thermostat"),
              "set_lock.lock_id": _online_kind("lock"), "control_device.device_id": _online_kind(*SWITCHABLE)},
    values={
        "email": _email,
        "get_energy_usage": _period,
        "brightness": lambda rng, state: rng.choice((10, 20, 25, 30, 40, 50, 60, 75, 80, 100)),
        "temperature_c": lambda rng, state: rng.choice((18.0, 18.5, 19.0, 19.5, 20.0, 20.5, 21.0, 21.5, 22.0, 23.0)),
        "create_routine": _new_routine,
    },
    field_nouns={
        "kind": "device type", "total_kwh": "energy used", "average_daily_kwh": "average daily use", "peak_kwh": "highest daily use",
        "kwh": "energy used", "price_per_kwh": "electricity price", "amount": "estimated cost",
        "brightness_pct": "brightness", "target_temp_c": "target temperature", "current_temp_c": "room temperature",
        "humidity_pct": "humidity", "min_temp_c": "lowest allowed temperature",
        "max_temp_c": "highest allowed temperature", "position_pct": "blind position", "volume_pct": "volume",
        "power_w": "power draw", "battery_pct": "battery level", "device_count": "number of devices",
        "room_count": "number of rooms", "home_count": "number of homes", "offline_device_count": "number of offline devices",
        "devices_updated": "number of devices adjusted", "last_activated": "last run", "next_run": "next run",
        "last_seen": "last contact", "peak_date": "busiest day", "floor": "floor",
    },
    field_units={
        "total_kwh": "kWh", "average_daily_kwh": "kWh", "peak_kwh": "kWh", "kwh": "kWh", "power_w": "W",
        "brightness_pct": "%", "humidity_pct": "%", "position_pct": "%", "volume_pct": "%", "battery_pct": "%",
        "target_temp_c": "°C", "current_temp_c": "°C", "min_temp_c": "°C", "max_temp_c": "°C",
    },
    out_of_scope=(
        "Can you order a four-pack of replacement light bulbs for me?",
        "What's the weather going to be like in Manchester tomorrow?",
        "Can you recommend a good robot vacuum under 300 pounds?",
        "Please book an electrician to look at my fuse box on Friday.",
        "How do I change the password on my Wi-Fi router?",
        "Can you switch me to a cheaper electricity supplier?",
        "What's a good recipe for banana bread?",
        "Translate 'the heating is broken' into German, please.",
        "Can you tell me who won the match last night?",
        "How much would solar panels cost for a three-bedroom house?",
        # near the domain: requests the tools look like they could serve, but do not
        "Can you update the firmware on my {devices.name}?",
        "Can you rename my {devices.name}?",
        "Can you add a new smart plug to {homes.name}?",
        "Can you order a replacement battery for my {devices.name}?",
        "Can you send an electrician to look at my {devices.name}?",
        "Can you give my neighbour access to {homes.name} while I'm away?",
        "Can you switch {homes.name} to a cheaper energy tariff?",
        "Can you show me the live camera feed from the front door?",
        "Can you move the {devices.name} to a different room in the app?",
        "Can you rename the {scenes.name} scene?",
        "What's the best smart thermostat to buy?",
        "Can you pay my electricity bill for {homes.name}?",
        "Can you factory-reset my {devices.name}?",
        "Can you change what the {scenes.name} scene does?",
        "Can you add a new room called Studio to {homes.name}?",
        "Can you tell me how much my neighbours pay for energy?",
    ),
    identity=IDENTITY,
)
