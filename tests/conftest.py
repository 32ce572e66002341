from hypothesis import settings

settings.register_profile("symrmt", deadline=None, max_examples=25, print_blob=True)
settings.load_profile("symrmt")
