from django.contrib import admin

from .models import Article, Category


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    search_fields = ["name"]


@admin.register(Article)
class ArticleAdmin(admin.ModelAdmin):
    list_display = ["title", "category", "published", "publish_date"]
    list_filter = ["published", "category"]
    search_fields = ["title", "body"]
    date_hierarchy = "publish_date"
