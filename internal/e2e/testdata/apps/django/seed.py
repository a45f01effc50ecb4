"""Seeds the newsroom: run with manage.py shell < seed.py."""
import datetime

from django.contrib.auth.models import Group, Permission, User

from articles.models import Article, Category

editors = Group.objects.create(name="Editors")
editors.permissions.set(Permission.objects.filter(content_type__app_label="articles"))
Group.objects.create(name="Reviewers")
User.objects.create_user("sam", "sam@example.org", "Sam-pass-2026", first_name="Sam", last_name="Reed")
news = Category.objects.create(name="News")
Category.objects.create(name="Sport")
Category.objects.create(name="Cultur")
for i, (title, cat, pub) in enumerate([
    ("Council approves the new bridge", news, True),
    ("Harbour festival moves to June", news, False),
    ("Local team wins the cup", None, True),
    ("Draft: budget leaks", news, False),
    ("Old announcement about parking", news, True),
    ("Another old announcement about parking", news, True),
]):
    Article.objects.create(title=title, body="Text of " + title, category=cat, published=pub,
                           publish_date=datetime.date(2026, 11, 1 + i))
