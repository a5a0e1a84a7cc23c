"""The HUD in the game's manner (viewer/game_hud.py, issue 42): the score and
the spare lives as balls, the level and the sector, from the level's HUD fields."""

from viewer.game_hud import BALL, game_hud_text


def test_score_lives_level_and_sector():
    fields = {"level": 2, "state": "playing", "score": 998, "lives": 3, "sector": 1, "ball": "wood",
              "final": None, "fade": None}
    assert game_hud_text(fields) == (f"998   {BALL} {BALL} {BALL}", "Level 2   Sector 1")


def test_the_final_score_once_counted_and_no_lives_left():
    """Final = 100 x 2 + 640 + 200 x 0 (glue-and-content 3), shown as the total."""
    fields = {"level": 2, "score": 640, "lives": 0, "sector": 3, "final": 840}
    assert game_hud_text(fields) == ("840  total", "Level 2   Sector 3")


def test_no_game_hud_without_a_score():
    assert game_hud_text({}) is None and game_hud_text({"speed": 3.0}) is None
