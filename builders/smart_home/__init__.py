"""Smart home: a hub app's homes, rooms, devices, scenes, routines and energy readings."""

from builders.smart_home.env import SmartHomeEnv
from builders.smart_home.language import LANGUAGE
from builders.smart_home.state import make_state
from covert.env import Builder

BUILDER = Builder(
    name="smart_home",
    version="1.10.0",
    description="Smart home hub support: find homes and rooms, check and control devices, run scenes, "
                "schedule routines, report energy use.",
    environment=SmartHomeEnv,
    make_state=make_state,
    language=LANGUAGE,
    system_prompt=(
        "You are the assistant of a smart home hub app. Find the person's account by email before touching "
        "their homes. Look devices, scenes and routines up rather than guessing ids. Offline devices cannot "
        "be controlled, thermostat targets must stay within each thermostat's own limits, a door standing open "
        "cannot be locked, and a scene only runs when all of its devices are online. Routine names must be unique "
        "within a home; confirm the exact scene, time and repeat before creating one."
    ),
)
