"""game-agnostic machinery"""
